/**
 * Reads from Redis that a decision waits for (an ownership check, a task's replica): each one
 * bounded by the connection's command timeout, and a Redis that cannot answer is
 * `StoreUnavailable`, which the caller turns into a refusal or an admission (its `failClosed`).
 * Shared by the task store (redis-store.ts) and the replica pins (redis-pins.ts).
 */
import type { Redis } from 'ioredis';
import { StoreUnavailable, type Owners } from '../tasks/tracker.js';
import type { OwnerCache } from './owner-cache.js';
import type { StoreStatus } from './store-status.js';

export class RedisReads {
  constructor(
    private readonly client: Redis,
    private readonly status: StoreStatus,
    /** A miss is read again after this long: another replica's write may be on its way (0: never). */
    private readonly retryMs: number,
    /** How many times a miss is read again, each wait twice the one before. */
    private readonly retries = 1,
  ) {}

  /** A read that Redis cannot answer now (down, or past `timeout`) is StoreUnavailable. */
  async read<T>(command: () => Promise<T>): Promise<T> {
    if (this.client.status !== 'ready') {
      this.status.failed('read', new Error(`Redis is ${this.client.status}`));
      throw new StoreUnavailable(new Error(`Redis is ${this.client.status}`));
    }
    try {
      return await command();
    } catch (err) {
      this.status.failed('read', err);
      throw new StoreUnavailable(err);
    }
  }

  /** Values from the cache (they never change once recorded), the rest from Redis; a miss is read once more after `retryMs`. */
  async lookup(
    cache: OwnerCache,
    agent: string,
    ids: readonly string[],
    fetch: (id: string) => Promise<string | null>,
  ): Promise<Owners> {
    const values = new Map<string, string | undefined>(ids.map((id) => [id, cache.get(agent, id)]));
    const fetchMissing = async () => {
      const missing = [...values].filter(([, value]) => value === undefined).map(([id]) => id);
      const found = await this.read(() => Promise.all(missing.map(fetch)));
      missing.forEach((id, i) => {
        const value = found[i] ?? undefined;
        values.set(id, value);
        if (value !== undefined) cache.set(agent, id, value);
      });
      return missing.length > 0 && found.some((value) => value === null);
    };
    if ([...values.values()].every((value) => value !== undefined)) return values;
    let missed = await fetchMissing();
    for (let i = 0, wait = this.retryMs; missed && wait > 0 && i < this.retries; i++, wait *= 2) {
      await new Promise((resolve) => setTimeout(resolve, wait));
      missed = await fetchMissing();
    }
    return values;
  }
}
