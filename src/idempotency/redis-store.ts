/**
 * Idempotent sends in Redis (`state.store: redis`), on the connection the task store shares
 * (src/state/build.ts), so every replica and worker sees the same keys. One key per send,
 * `{keyPrefix}idem:{key}`, holding the entry as JSON (store.ts StoredEntry) with the window as
 * its TTL: the claim is SET NX PX, settle and release compare the claimant's token first — each
 * one Lua script, so no two replicas both become the first.
 *
 * A duplicate on another replica polls the key with backoff (50 ms growing by half to 1 s) until
 * an outcome or its `wait` ends. Not pub/sub: a subscriber needs a connection of its own per
 * process, and a message published while it reconnects is lost, so a waiter would need the poll
 * as a fallback anyway; duplicates are retries (rare, seconds apart), for which a few GETs each
 * cost less than a second connection on every replica.
 */
import type { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { IdempotencyUnavailable, type Claim, type IdempotencyStore, type Outcome, type StoredEntry } from './store.js';

/** The entry if it was held, else nil after claiming it. */
const CLAIM = `
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return false end
return redis.call('GET', KEYS[1])`;

/** Replaces the entry with ARGV[2] when ARGV[1] is still its token (settle), or deletes it
 * when ARGV[2] is empty and it has no outcome yet (release). */
const FINISH = `
local held = redis.call('GET', KEYS[1])
if not held then return 0 end
local entry = cjson.decode(held)
if entry.token ~= ARGV[1] then return 0 end
if ARGV[2] == '' then
  if entry.outcome then return 0 end
  redis.call('DEL', KEYS[1])
else
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
end
return 1`;

interface IdemCommands {
  a2aIdemClaim(key: string, entry: string, ttlMs: number): Promise<string | null>;
  a2aIdemFinish(key: string, token: string, entry: string, ttlMs: number): Promise<number>;
}

const FIRST_POLL_MS = 50;
const MAX_POLL_MS = 1000;

export class RedisIdempotencyStore implements IdempotencyStore {
  private readonly client: Redis & IdemCommands;

  constructor(
    client: Redis,
    private readonly keyPrefix: string,
  ) {
    client.defineCommand('a2aIdemClaim', { numberOfKeys: 1, lua: CLAIM });
    client.defineCommand('a2aIdemFinish', { numberOfKeys: 1, lua: FINISH });
    this.client = client as Redis & IdemCommands;
  }

  async claim(key: string, fingerprint: string, ttlMs: number): Promise<Claim> {
    const token = randomUUID();
    const entry: StoredEntry = { fingerprint, token };
    const held = await this.run(() => this.client.a2aIdemClaim(this.keyOf(key), JSON.stringify(entry), ttlMs));
    if (held === null) return { state: 'first', token };
    const found = parseEntry(held);
    if (!found) throw new IdempotencyUnavailable('an idempotency entry in Redis is not one the gateway wrote');
    return found.outcome
      ? { state: 'settled', fingerprint: found.fingerprint, outcome: found.outcome }
      : { state: 'pending', fingerprint: found.fingerprint };
  }

  async settle(key: string, token: string, fingerprint: string, outcome: Outcome, ttlMs: number): Promise<void> {
    const entry: StoredEntry = { fingerprint, token, outcome };
    await this.run(() => this.client.a2aIdemFinish(this.keyOf(key), token, JSON.stringify(entry), ttlMs));
  }

  async release(key: string, token: string): Promise<void> {
    await this.run(() => this.client.a2aIdemFinish(this.keyOf(key), token, '', 0));
  }

  /** Polls: the caller claims again after each wait (see the header for why not pub/sub). */
  async changed(_key: string, ms: number, attempt: number): Promise<void> {
    const interval = Math.min(FIRST_POLL_MS * 1.5 ** attempt, MAX_POLL_MS) * (0.8 + Math.random() * 0.4);
    await delay(Math.min(interval, ms));
  }

  private keyOf(key: string): string {
    return `${this.keyPrefix}idem:${key}`;
  }

  private async run<T>(command: () => Promise<T>): Promise<T> {
    try {
      return await command();
    } catch (err) {
      throw new IdempotencyUnavailable(`the idempotency store cannot answer: ${(err as Error).message}`, {
        cause: err,
      });
    }
  }
}

function parseEntry(text: string): StoredEntry | undefined {
  try {
    const entry = JSON.parse(text) as StoredEntry;
    return typeof entry.fingerprint === 'string' && typeof entry.token === 'string' ? entry : undefined;
  } catch {
    return undefined;
  }
}
