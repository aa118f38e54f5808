/**
 * Task affinity's pins shared by every gateway process (src/fleet/pins.ts): one key per task or
 * context, `{prefix}pin:{agent}:{task|context}:{id}` → the replica's URL, written `SET NX` (the
 * first replica wins, on every gateway alike) with the expiry of `tasks.ttl`. Written at once,
 * not through the task store's batched queue: the caller may ask another gateway about the task
 * the moment its answer arrives, and a lookup that misses reads again, three times, from
 * `ownerReadRetry` on (redis-reads.ts). A pin never changes, so each process caches what it read.
 */
import type { Redis } from 'ioredis';
import type { PinKind, Pins } from '../fleet/pins.js';
import { OwnerCache } from './owner-cache.js';
import { RedisReads } from './redis-reads.js';
import type { StoreStatus } from './store-status.js';
import type { RedisStateConfig } from '../config/state-schema.js';

export class RedisPins implements Pins {
  private readonly cache: Record<PinKind, OwnerCache>;
  private readonly reads: RedisReads;

  constructor(
    private readonly client: Redis,
    private readonly config: RedisStateConfig,
    private readonly limits: { maxTasks: number; ttlMs: number },
    private readonly status: StoreStatus,
  ) {
    const size = Math.min(limits.maxTasks, 100_000);
    this.cache = { task: new OwnerCache(size, limits.ttlMs), context: new OwnerCache(size, limits.ttlMs) };
    // Three re-reads (ownerReadRetry, then twice, then four times as long: 175 ms by default):
    // a unary answer's task is pinned when the answer ends, as the client reads it, so a client
    // that asks another gateway at once can be ahead of the pin's write on a loaded host.
    this.reads = new RedisReads(client, status, config.ownerReadRetry, 3);
  }

  pin(agent: string, kind: PinKind, id: string, replica: string): void {
    const cache = this.cache[kind];
    if (cache.get(agent, id) !== undefined) return; // pinned already: a pin never changes
    cache.claim(agent, id, replica);
    const key = this.key(agent, kind, id);
    // SET NX … GET: the pin in Redis after this write, whoever made it (a context two gateways
    // saw at once: the other's may have won).
    this.client
      .set(key, replica, 'PX', this.limits.ttlMs, 'NX', 'GET')
      .then((before) => before !== null && cache.set(agent, id, before))
      .catch((err: unknown) => this.status.failed('write', err));
  }

  async replicaOf(agent: string, kind: PinKind, id: string): Promise<string | undefined> {
    const found = await this.reads.lookup(this.cache[kind], agent, [id], (i) =>
      this.client.get(this.key(agent, kind, i)),
    );
    return found.get(id);
  }

  close(): Promise<void> {
    return Promise.resolve(); // the connection is the task store's (src/state/build.ts)
  }

  private key(agent: string, kind: PinKind, id: string): string {
    return `${this.config.keyPrefix}pin:${agent}:${kind}:${id}`;
  }
}
