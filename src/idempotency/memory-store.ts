/**
 * Idempotent sends in this process (`state.store: memory`): one lru-cache bounded in entries by
 * `tasks.maxTracked` and in bytes by `idempotency.memoryBytes` (a kept Message counts its body),
 * each entry with its own TTL (the agent's `window`). Duplicates waiting for a first send are
 * woken by its settle or release, at the latest when their wait ends.
 */
import { randomUUID } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { Claim, IdempotencyStore, Outcome, StoredEntry } from './store.js';

export interface MemoryStoreLimits {
  readonly maxEntries: number;
  readonly maxBytes: number;
}

/** A key and token, and the object around them (an estimate of an entry's own cost). */
const ENTRY_BYTES = 200;

export class MemoryIdempotencyStore implements IdempotencyStore {
  private readonly entries: LRUCache<string, StoredEntry>;
  /** Per key, the duplicates waiting for it (each is a call in flight: bounded by the client limits). */
  private readonly waiters = new Map<string, Set<() => void>>();

  constructor(limits: MemoryStoreLimits) {
    this.entries = new LRUCache<string, StoredEntry>({
      max: limits.maxEntries,
      maxSize: limits.maxBytes,
      sizeCalculation: (entry) => ENTRY_BYTES + (entry.outcome?.kind === 'message' ? entry.outcome.body.length : 0),
    });
  }

  claim(key: string, fingerprint: string, ttlMs: number): Promise<Claim> {
    const held = this.entries.get(key);
    if (held?.outcome)
      return Promise.resolve({ state: 'settled', fingerprint: held.fingerprint, outcome: held.outcome });
    if (held) return Promise.resolve({ state: 'pending', fingerprint: held.fingerprint });
    const token = randomUUID();
    this.entries.set(key, { fingerprint, token }, { ttl: ttlMs });
    return Promise.resolve({ state: 'first', token });
  }

  settle(key: string, token: string, fingerprint: string, outcome: Outcome, ttlMs: number): Promise<void> {
    if (this.entries.get(key)?.token === token) this.entries.set(key, { fingerprint, token, outcome }, { ttl: ttlMs });
    this.wake(key);
    return Promise.resolve();
  }

  release(key: string, token: string): Promise<void> {
    const held = this.entries.get(key);
    if (held?.token === token && !held.outcome) this.entries.delete(key);
    this.wake(key);
    return Promise.resolve();
  }

  changed(key: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      let set = this.waiters.get(key);
      if (!set) this.waiters.set(key, (set = new Set()));
      const done = () => {
        clearTimeout(timer);
        set.delete(done);
        if (set.size === 0 && this.waiters.get(key) === set) this.waiters.delete(key);
        resolve();
      };
      const timer = setTimeout(done, ms);
      set.add(done);
    });
  }

  private wake(key: string): void {
    const set = this.waiters.get(key);
    if (set) for (const done of [...set]) done();
  }
}
