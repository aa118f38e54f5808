/**
 * Makes the state pieces from `state` and `tasks` (docs/deploying.md "Scaling out"): the task store, and
 * with `store: redis` the one Redis connection it shares with the rate limits, and the status
 * the metrics and `/readyz` read. src/gateway/gateway.ts calls this once.
 */
import type { GatewayConfig } from '../config/schema.js';
import type { Logger } from '../log.js';
import { InMemoryTaskStore } from '../tasks/memory-store.js';
import type { TaskStore } from '../tasks/tracker.js';
import type { SharedCounts } from '../access/rate-limit.js';
import { connectRedis } from './redis-connection.js';
import { RedisTaskStore } from './redis-store.js';
import { MemoryPins, type Pins } from '../fleet/pins.js';
import { RedisPins } from './redis-pins.js';
import { StoreStatus, type StoreStatusView } from './store-status.js';
import type { IdempotencyStore } from '../idempotency/store.js';
import { MemoryIdempotencyStore } from '../idempotency/memory-store.js';
import { RedisIdempotencyStore } from '../idempotency/redis-store.js';
import type { ReplayWindows } from '../resume/window.js';
import { MemoryReplayWindows } from '../resume/memory-window.js';
import { RedisReplayWindows } from '../resume/redis-window.js';

export interface State {
  readonly store: TaskStore;
  /** Task affinity: which replica each task and conversation lives on (src/fleet/pins.ts). */
  readonly pins: Pins;
  /** Absent for the in-memory store (always up, never fails). */
  readonly status?: StoreStatusView;
  /** Where rate limits count when shared. */
  readonly sharedCounts?: SharedCounts;
  /** With `state.redis.required`: `/readyz` is 503 while this is false. */
  readonly ready: () => boolean;
  /** Idempotent sends (src/idempotency/): beside the task store, on its Redis connection when shared. */
  readonly idempotency: IdempotencyStore;
  /** Stream resume's replay windows (src/resume/): in this process, or in Redis Streams on the same connection. */
  readonly windows: ReplayWindows;
}

export function buildState(config: GatewayConfig, log: Logger): State {
  const limits = {
    maxTasks: config.tasks.maxTracked,
    ttlMs: config.tasks.ttl,
    unobservedAfterMs: config.tasks.unobservedAfter,
  };
  const redis = config.state.store === 'redis' ? config.state.redis : undefined;
  if (!redis) {
    const idempotency = new MemoryIdempotencyStore({
      maxEntries: config.tasks.maxTracked,
      maxBytes: config.idempotency.memoryBytes,
    });
    const windows = new MemoryReplayWindows(config.resume.memoryStreams);
    return {
      store: new InMemoryTaskStore(limits),
      pins: new MemoryPins(limits),
      ready: () => true,
      idempotency,
      windows,
    };
  }
  const status = new StoreStatus(log);
  const client = connectRedis(redis, status);
  return {
    store: new RedisTaskStore(client, redis, limits, status),
    pins: new RedisPins(client, redis, limits, status),
    status,
    sharedCounts: { client, keyPrefix: redis.keyPrefix },
    ready: () => !redis.required || status.up,
    idempotency: new RedisIdempotencyStore(client, redis.keyPrefix),
    windows: new RedisReplayWindows(client, redis.keyPrefix),
  };
}
