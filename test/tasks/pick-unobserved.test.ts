/**
 * `TaskStore.pickUnobserved` (src/tasks/tracker.ts), what the gateway confirms (src/tasks/
 * confirm.ts): unfinished tasks of one agent that no answer has shown for `unobservedAfter`,
 * each picked once per `unobservedAfter` — in one process, and across replicas sharing Redis
 * (a real redis-server). Both stores on the same sightings, at times the test gives.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type TestRedis } from '../support/redis-server.js';
import { InMemoryTaskStore } from '../../src/tasks/memory-store.js';
import type { TaskSighting, TaskStore } from '../../src/tasks/tracker.js';
import type { TaskState } from '../../src/a2a/task-state.js';
import { redisConfig, replica, type Replica } from '../state/support/stores.js';

const AFTER = 1_000;
const LIMITS = { maxTasks: 100, ttlMs: 3_600_000, unobservedAfterMs: AFTER };
const S = (state: string) => `TASK_STATE_${state}` as TaskState;
const seen = (state: string, at: number): TaskSighting => ({ state: S(state), at, shown: true });

const SIGHTINGS: Array<[string, string, TaskSighting]> = [
  ['a', 't-old', seen('WORKING', 1_000)],
  ['a', 't-done', seen('WORKING', 1_000)],
  ['a', 't-done', seen('COMPLETED', 1_100)],
  ['b', 't-other', seen('WORKING', 1_000)],
  ['a', 't-fresh', seen('SUBMITTED', 1_000)],
  ['a', 't-fresh', seen('WORKING', 9_500)],
  ['a', 't-waiting', { ...seen('INPUT_REQUIRED', 1_200), tenant: 'acme' }],
];

async function fill(store: TaskStore): Promise<void> {
  for (const [agent, id, sighting] of SIGHTINGS) await store.observe(agent, id, sighting);
}

const ids = (picked: ReadonlyArray<{ taskId: string }>) => picked.map((p) => p.taskId).sort();

let redis: TestRedis;
const open: Replica[] = [];
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await Promise.all(open.map((r) => r.store.close()));
  await redis.stop();
});

async function redisPair(): Promise<[TaskStore, TaskStore]> {
  const config = redisConfig(redis.url);
  const both = [await replica(config, LIMITS), await replica(config, LIMITS)];
  open.push(...both);
  return [both[0]!.store, both[1]!.store];
}

describe.each([
  ['memory', async () => new InMemoryTaskStore(LIMITS) as TaskStore],
  ['redis', async () => (await redisPair())[0]],
])('%s store: pickUnobserved', (_name, make) => {
  it('picks the unfinished tasks of the agent not seen for unobservedAfter, with their state and tenant', async () => {
    const store = await make();
    await fill(store);
    const picked = await store.pickUnobserved('a', 10_000, 10);
    expect(ids(picked)).toEqual(['t-old', 't-waiting']);
    expect(picked.find((p) => p.taskId === 't-waiting')).toEqual({
      taskId: 't-waiting',
      state: S('INPUT_REQUIRED'),
      tenant: 'acme',
    });
    expect(picked.find((p) => p.taskId === 't-old')).toEqual({ taskId: 't-old', state: S('WORKING') });
    expect((await store.get('a', 't-waiting'))!.tenant).toBe('acme');
  });

  it('picks each once per unobservedAfter, then again while it stays unobserved', async () => {
    const store = await make();
    await fill(store);
    expect(ids(await store.pickUnobserved('a', 10_000, 10))).toEqual(['t-old', 't-waiting']);
    expect(await store.pickUnobserved('a', 10_400, 10)).toEqual([]);
    // The claims have lapsed, and t-fresh (last seen at 9,500) has become stale too.
    expect(ids(await store.pickUnobserved('a', 11_001, 10))).toEqual(['t-fresh', 't-old', 't-waiting']);
  });

  it('picks no more than the limit, and a task seen since is no longer stale', async () => {
    const store = await make();
    await fill(store);
    expect(await store.pickUnobserved('a', 10_000, 1)).toHaveLength(1);
    await store.observe('a', 't-old', seen('WORKING', 10_000));
    await store.observe('a', 't-waiting', seen('INPUT_REQUIRED', 10_000));
    expect(await store.pickUnobserved('a', 10_400, 10)).toEqual([]);
  });
});

describe('redis store: pickUnobserved across replicas', () => {
  it('gives a stale task to one replica only until unobservedAfter has passed', async () => {
    const [one, two] = await redisPair();
    await fill(one);
    const first = await one.pickUnobserved('a', 10_000, 10);
    expect(ids(first)).toEqual(['t-old', 't-waiting']);
    expect(await two.pickUnobserved('a', 10_000, 10)).toEqual([]);
    expect(await one.pickUnobserved('a', 10_000, 10)).toEqual([]);
  });
});
