/**
 * Both idempotency stores (src/idempotency/memory-store.ts, redis-store.ts) against one contract;
 * the Redis one on a real redis-server (test/support/redis-server.ts), also as two replicas on
 * their own connections, and while Redis is down.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type TestRedis } from '../support/redis-server.js';
import { MemoryIdempotencyStore } from '../../src/idempotency/memory-store.js';
import { RedisIdempotencyStore } from '../../src/idempotency/redis-store.js';
import { IdempotencyUnavailable, type IdempotencyStore, type Outcome } from '../../src/idempotency/store.js';
import { withDeadline } from '../peers/deadline.js';
import { redisConfig, replica, until, type Replica } from '../state/support/stores.js';

let redis: TestRedis;
const replicas: Replica[] = [];
const redisStore = async () => {
  const r = await replica(redisConfig(redis.url, { keyPrefix: 'idem-test:' }));
  replicas.push(r);
  return new RedisIdempotencyStore(r.client, r.config.keyPrefix);
};

beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await Promise.all(replicas.map((r) => r.store.close()));
  await redis.stop();
});

const TASK: Outcome = { kind: 'task', taskId: 't-1' };
const MINUTE = 60_000;

const stores: Array<[string, () => Promise<IdempotencyStore>]> = [
  ['memory', async () => new MemoryIdempotencyStore({ maxEntries: 100, maxBytes: 1 << 20 })],
  ['redis', redisStore],
];

describe.each(stores)('%s store', (_name, make) => {
  it('the first claim is first; the next finds it pending, then settled with its outcome', async () => {
    const store = await make();
    const key = randomUUID();
    const first = await store.claim(key, 'fp', MINUTE);
    expect(first.state).toBe('first');
    expect(await store.claim(key, 'other', MINUTE)).toEqual({ state: 'pending', fingerprint: 'fp' });
    await store.settle(key, (first as { token: string }).token, 'fp', TASK, MINUTE);
    expect(await store.claim(key, 'fp', MINUTE)).toEqual({ state: 'settled', fingerprint: 'fp', outcome: TASK });
  });

  it('a released key is free again; a stranger token neither settles nor releases it', async () => {
    const store = await make();
    const key = randomUUID();
    const first = (await store.claim(key, 'fp', MINUTE)) as { token: string };
    await store.settle(key, 'not-the-token', 'fp', TASK, MINUTE);
    await store.release(key, 'not-the-token');
    expect((await store.claim(key, 'fp', MINUTE)).state).toBe('pending');
    await store.release(key, first.token);
    expect((await store.claim(key, 'fp', MINUTE)).state).toBe('first');
  });

  it('a settled key is not released (the outcome stays for its window)', async () => {
    const store = await make();
    const key = randomUUID();
    const first = (await store.claim(key, 'fp', MINUTE)) as { token: string };
    await store.settle(key, first.token, 'fp', TASK, MINUTE);
    await store.release(key, first.token);
    expect((await store.claim(key, 'fp', MINUTE)).state).toBe('settled');
  });

  it('keeps a Message outcome as it was given', async () => {
    const store = await make();
    const key = randomUUID();
    const body = Buffer.from('{"jsonrpc":"2.0","id":1,"result":{"message":{}}}').toString('base64');
    const message: Outcome = { kind: 'message', status: 200, contentType: 'application/json', body };
    const first = (await store.claim(key, 'fp', MINUTE)) as { token: string };
    await store.settle(key, first.token, 'fp', message, MINUTE);
    expect(await store.claim(key, 'fp', MINUTE)).toMatchObject({ outcome: message });
  });

  it('forgets a key after its window', async () => {
    const store = await make();
    const key = randomUUID();
    await store.claim(key, 'fp', 20);
    await until(async () => (await store.claim(key, 'fp', MINUTE)).state === 'first', 'the window to end');
  });
});

describe('waiting for a change', () => {
  it('memory: a waiter is woken by the settle, long before its wait ends', async () => {
    const store = new MemoryIdempotencyStore({ maxEntries: 10, maxBytes: 1 << 20 });
    const first = (await store.claim('k', 'fp', MINUTE)) as { token: string };
    const woken = store.changed('k', 60_000);
    await store.settle('k', first.token, 'fp', TASK, MINUTE);
    await withDeadline(woken, 5000, 'the waiter woken');
  });

  it('memory: a wait ends at its bound without a change', async () => {
    const store = new MemoryIdempotencyStore({ maxEntries: 10, maxBytes: 1 << 20 });
    await withDeadline(store.changed('k', 10), 5000, 'the wait to end');
  });
});

describe('redis: two replicas on their own connections', () => {
  it('one claims, the other finds it pending, then its outcome; only one is ever first', async () => {
    const [a, b] = [await redisStore(), await redisStore()];
    const key = randomUUID();
    const claims = await Promise.all([a.claim(key, 'fp', MINUTE), b.claim(key, 'fp', MINUTE)]);
    expect(claims.map((c) => c.state).sort()).toEqual(['first', 'pending']);
    const winner = claims[0]!.state === 'first' ? a : b;
    await winner.settle(key, (claims.find((c) => c.state === 'first') as { token: string }).token, 'fp', TASK, MINUTE);
    expect(await (winner === a ? b : a).claim(key, 'fp', MINUTE)).toMatchObject({ state: 'settled', outcome: TASK });
  });

  it('while Redis is down a claim fails as IdempotencyUnavailable, and works again after', async () => {
    const store = await redisStore();
    const r = replicas.at(-1)!;
    await redis.stop();
    try {
      await until(() => !r.status.up, 'down');
      await expect(store.claim(randomUUID(), 'fp', MINUTE)).rejects.toBeInstanceOf(IdempotencyUnavailable);
    } finally {
      await redis.start();
    }
    await until(() => r.status.up, 'up again');
    expect((await store.claim(randomUUID(), 'fp', MINUTE)).state).toBe('first');
  });
});

describe('memory: bounded', () => {
  it('by bytes: kept Messages past memoryBytes push the oldest out', async () => {
    const store = new MemoryIdempotencyStore({ maxEntries: 1000, maxBytes: 3000 });
    const body = 'x'.repeat(1000);
    for (const key of ['k1', 'k2', 'k3', 'k4']) {
      const first = (await store.claim(key, 'fp', MINUTE)) as { token: string };
      await store.settle(key, first.token, 'fp', { kind: 'message', status: 200, contentType: 'j', body }, MINUTE);
    }
    expect((await store.claim('k1', 'fp', MINUTE)).state).toBe('first');
    expect((await store.claim('k4', 'fp', MINUTE)).state).toBe('settled');
  });

  it('by entries: past maxEntries the least recent goes', async () => {
    const store = new MemoryIdempotencyStore({ maxEntries: 2, maxBytes: 1 << 20 });
    for (const key of ['k1', 'k2', 'k3']) await store.claim(key, 'fp', MINUTE);
    expect((await store.claim('k3', 'fp', MINUTE)).state).toBe('pending');
    expect((await store.claim('k1', 'fp', MINUTE)).state).toBe('first');
  });
});
