/** Redis task stores for the shared-state tests: each its own connection, like two replicas. */
import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { connectRedis } from '../../../src/state/redis-connection.js';
import { RedisTaskStore } from '../../../src/state/redis-store.js';
import { StoreStatus } from '../../../src/state/store-status.js';
import { stateSchema, type RedisStateConfig } from '../../../src/config/state-schema.js';

export interface Replica {
  readonly store: RedisTaskStore;
  readonly status: StoreStatus;
  readonly client: ReturnType<typeof connectRedis>;
  readonly config: RedisStateConfig;
}

/** `state.redis` as the schema makes it from `url` (its defaults), with a fresh key prefix. */
export function redisConfig(url: string, extra: Partial<RedisStateConfig> = {}): RedisStateConfig {
  const state = stateSchema.parse({ store: 'redis', redis: { url, keyPrefix: `test-${randomUUID().slice(0, 8)}:` } });
  return { ...state.redis!, ...extra };
}

/** A store on its own connection, once connected. */
export async function replica(
  config: RedisStateConfig,
  limits: { maxTasks: number; ttlMs: number; unobservedAfterMs?: number } = { maxTasks: 1000, ttlMs: 3_600_000 },
) {
  const status = new StoreStatus(pino({ level: 'silent' }));
  const client = connectRedis(config, status);
  const store = new RedisTaskStore(client, config, limits, status);
  await until(() => status.up, 'connected');
  return { store, status, client, config } satisfies Replica;
}

/** Polls `ok` every 10 ms until it holds (bounded: 10 s, then a named failure). */
export async function until(ok: () => boolean | Promise<boolean>, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
