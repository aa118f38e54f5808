/**
 * The Redis task store against a real redis-server (test/support/redis-server.ts): the same
 * stories as the in-memory store, each transition recorded once across replicas, owners shared,
 * one census, bounded memory, and Redis going away and coming back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type TestRedis } from '../support/redis-server.js';
import { InMemoryTaskStore } from '../../src/tasks/memory-store.js';
import { StoreUnavailable, type TaskEvent, type TaskSighting } from '../../src/tasks/tracker.js';
import type { TaskState } from '../../src/a2a/task-state.js';
import { RateLimit } from '../../src/access/rate-limit.js';
import { redisConfig, replica, until, type Replica } from './support/stores.js';

let redis: TestRedis;
const open: Replica[] = [];
const pair = async (extra = {}, limits?: { maxTasks: number; ttlMs: number }) => {
  const config = redisConfig(redis.url, extra);
  const both = [await replica(config, limits), await replica(config, limits)];
  open.push(...both);
  return both as [Replica, Replica];
};

beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await Promise.all(open.map((r) => r.store.close()));
  await redis.stop();
});

const S = (state: string) => `TASK_STATE_${state}` as TaskState;
/** What an event says, without the story object it points at. */
const said = (events: TaskEvent[]) =>
  events.map((e) => {
    const { story, ...rest } = e as TaskEvent & Record<string, unknown>;
    return { ...rest, task: story.taskId };
  });

const SIGHTINGS: Array<[string, TaskSighting]> = [
  ['t1', { state: S('SUBMITTED'), at: 1_000, contextId: 'c1', principal: 'alice', shown: true }],
  ['t1', { state: S('WORKING'), at: 1_500, shown: true }],
  ['t2', { state: S('WORKING'), at: 1_600, principal: 'bob', shown: true }],
  ['t1', { state: S('INPUT_REQUIRED'), at: 2_000, shown: true }],
  ['t1', { state: S('INPUT_REQUIRED'), at: 2_500, shown: true }],
  ['t1', { at: 3_000, shown: true }],
  ['t1', { state: S('WORKING'), at: 7_000, shown: true }],
  ['t2', { state: S('AUTH_REQUIRED'), at: 7_500, shown: true }],
  ['t1', { state: S('COMPLETED'), at: 11_000, shown: true }],
  ['t1', { state: S('WORKING'), at: 12_000, shown: true }], // after terminal: changes nothing
  ['t2', { state: S('CANCELED'), at: 13_000, shown: true }],
];
/** The agent's status.timestamp (src/tasks/agent-time.ts): believed, in the future, too early. */
const STAMPED: Array<[string, TaskSighting]> = [
  ['t3', { state: S('WORKING'), at: 20_000, agentAt: 19_000, shown: true }],
  ['t3', { state: S('INPUT_REQUIRED'), at: 40_000, agentAt: 21_000, shown: true }],
  ['t3', { state: S('WORKING'), at: 41_000, agentAt: 99_000, shown: true }],
  ['t3', { state: S('COMPLETED'), at: 60_000, agentAt: 1_000, shown: true }],
];

describe('the Redis task store', () => {
  it('counts unobserved unfinished tasks as the in-memory store does (story.ts countStory)', async () => {
    const limits = { maxTasks: 1000, ttlMs: 3_600_000, unobservedAfterMs: 1_000 };
    const [{ store }] = await pair({}, limits);
    const memory = new InMemoryTaskStore(limits);
    for (const s of [store, memory]) {
      await s.observe('quiet', 'old', { state: S('WORKING'), at: 1_000, shown: true });
      await s.observe('quiet', 'recent', { state: S('WORKING'), at: 1_500, shown: true });
      await s.observe('quiet', 'recent', { at: 2_600, shown: true });
      await s.observe('quiet', 'done', { state: S('COMPLETED'), at: 1_000, shown: true });
    }
    const fromRedis = (await store.census(['quiet'], 2_700, 'view'))!.census;
    const fromMemory = (await memory.census(['quiet'], 2_700)).census;
    expect(fromRedis).toEqual(fromMemory);
    expect(fromRedis.get('quiet')!.get(S('WORKING'))).toEqual({ count: 2, unobserved: 1, oldestSince: 1_500 });
  });

  it('notes refused calls on a tracked story as the in-memory store does (src/tasks/refusal.ts)', async () => {
    const [{ store }] = await pair();
    const memory = new InMemoryTaskStore({ maxTasks: 1000, ttlMs: 3_600_000 });
    for (const s of [store, memory]) {
      await s.observe('refusing', 'r1', { state: S('WORKING'), at: 1_000, shown: true });
      for (let i = 0; i < 12; i++)
        s.refuse('refusing', 'r1', { at: 2_000 + i, reason: 'not-owner', operation: 'GetTask' });
      s.refuse('refusing', 'unknown', { at: 3_000, reason: 'rate-limited', operation: 'GetTask' });
    }
    await until(async () => (await store.get('refusing', 'r1'))?.refused?.length === 10, 'ten refusals in Redis');
    expect(await store.get('refusing', 'r1')).toEqual(await memory.get('refusing', 'r1'));
    expect(await store.get('refusing', 'unknown')).toBeUndefined();
  });

  it('tells the same story, with the same events, as the in-memory store', async () => {
    const [{ store }] = await pair();
    const memory = new InMemoryTaskStore({ maxTasks: 1000, ttlMs: 3_600_000 });
    for (const [taskId, sighting] of [...SIGHTINGS, ...STAMPED]) {
      const [fromRedis, fromMemory] = await Promise.all([
        store.observe('reviewer', taskId, sighting),
        memory.observe('reviewer', taskId, sighting),
      ]);
      expect(said(fromRedis)).toEqual(said(fromMemory));
    }
    // The same stories; only a settled task's last sighting differs: this replica stops writing
    // a task once it has settled (nothing can change), so Redis keeps its settling time.
    for (const taskId of ['t1', 't2', 't3']) {
      const fromMemory = (await memory.get('reviewer', taskId))!;
      const fromRedis = (await store.get('reviewer', taskId))!;
      expect({ ...fromRedis, lastSeen: 0 }).toEqual({ ...fromMemory, lastSeen: 0 });
    }
    expect((await store.get('reviewer', 't1'))?.lastSeen).toBe(11_000);
    expect((await memory.get('reviewer', 't1'))?.lastSeen).toBe(12_000);
    expect((await store.get('reviewer', 't1'))?.interruptedMs).toEqual({ TASK_STATE_INPUT_REQUIRED: 5_000 });
    expect(await store.get('reviewer', 'never-seen')).toBeUndefined();
  });

  it('sends a settled task no further writes (polls of finished tasks cost Redis nothing)', async () => {
    const [{ store, client }] = await pair();
    await store.observe('reviewer', 'done', { state: S('COMPLETED'), at: 1_000, shown: true });
    const scriptCalls = async () =>
      Number(/cmdstat_evalsha:calls=(\d+)/.exec(await client.info('commandstats'))?.[1] ?? 0);
    const before = await scriptCalls();
    for (let i = 0; i < 10; i++)
      expect(await store.observe('reviewer', 'done', { state: S('COMPLETED'), at: 2_000 + i, shown: true })).toEqual(
        [],
      );
    expect(await scriptCalls()).toBe(before);
    expect((await store.get('reviewer', 'done'))?.states).toEqual([{ state: S('COMPLETED'), at: 1_000, shown: true }]);
  });

  it('tells the same story of shown and gateway-only states, also past the settled cache', async () => {
    const [{ store, client }] = await pair();
    const memory = new InMemoryTaskStore({ maxTasks: 1000, ttlMs: 3_600_000 });
    const hidden = (state: string, at: number): TaskSighting => ({ state: S(state), at, shown: false });
    const seen = (state: string, at: number): TaskSighting => ({ state: S(state), at, shown: true });
    const sightings: Array<[string, TaskSighting]> = [
      ['r1', hidden('SUBMITTED', 1_000)], // the rescue's returnImmediately reply
      ['r1', hidden('WORKING', 1_100)], // its polls
      ['r1', seen('WORKING', 1_150)], // a GetTask of the client's: filled
      ['r1', hidden('WORKING', 1_200)], // stays filled
      ['r1', hidden('COMPLETED', 2_000)], // the rescue sees it settle
      ['r1', hidden('COMPLETED', 2_050)], // its final GetTask: skipped (settled, nothing to fill)
      ['r1', seen('COMPLETED', 2_100)], // its answer to the client: filled after terminal
      ['r2', seen('WORKING', 1_000)],
      ['r2', hidden('INPUT_REQUIRED', 1_500)],
      ['r2', seen('COMPLETED', 3_000)],
    ];
    for (const [taskId, sighting] of sightings) {
      const [fromRedis, fromMemory] = await Promise.all([
        store.observe('reviewer', taskId, sighting),
        memory.observe('reviewer', taskId, sighting),
      ]);
      expect(said(fromRedis)).toEqual(said(fromMemory));
    }
    for (const taskId of ['r1', 'r2']) {
      const fromMemory = (await memory.get('reviewer', taskId))!;
      expect({ ...(await store.get('reviewer', taskId))!, lastSeen: 0 }).toEqual({ ...fromMemory, lastSeen: 0 });
    }
    expect((await store.get('reviewer', 'r1'))!.states).toEqual([
      { state: S('SUBMITTED'), at: 1_000, shown: false },
      { state: S('WORKING'), at: 1_100, shown: true },
      { state: S('COMPLETED'), at: 2_000, shown: true },
    ]);
    expect((await store.get('reviewer', 'r2'))!.states.map((v) => v.shown)).toEqual([true, false, true]);
    // Once the settled state is known shown, polls of the finished task cost Redis nothing again.
    const scriptCalls = async () =>
      Number(/cmdstat_evalsha:calls=(\d+)/.exec(await client.info('commandstats'))?.[1] ?? 0);
    const before = await scriptCalls();
    await store.observe('reviewer', 'r1', seen('COMPLETED', 5_000));
    await store.observe('reviewer', 'r1', hidden('COMPLETED', 5_001));
    expect(await scriptCalls()).toBe(before);
  });

  it('records each transition once however many replicas see it', async () => {
    const [a, b] = await pair();
    const events: TaskEvent[] = [];
    // Both replicas see every answer, at the same moment (a poll through each).
    for (const [taskId, sighting] of SIGHTINGS) {
      const seen = await Promise.all([a, b].map((r) => r.store.observe('reviewer', taskId, sighting)));
      events.push(...seen.flat());
    }
    const count = (type: string) => events.filter((e) => e.type === type).length;
    expect(count('settled')).toBe(2); // t1 COMPLETED, t2 CANCELED
    expect(count('resumed')).toBe(2); // t1 left INPUT_REQUIRED, t2 left AUTH_REQUIRED
    expect(count('state')).toBe(8);
  });

  it('shares owners of tasks and contexts: the first caller wins on every replica', async () => {
    const [a, b] = await pair();
    await a.store.observe('reviewer', 'task-a', {
      state: S('WORKING'),
      at: Date.now(),
      principal: 'alice',
      shown: true,
    });
    await b.store.observe('reviewer', 'task-a', {
      state: S('COMPLETED'),
      at: Date.now(),
      principal: 'bob',
      shown: true,
    });
    const owners = await b.store.ownersOf('reviewer', ['task-a', 'unknown']);
    expect([...owners]).toEqual([
      ['task-a', 'alice'],
      ['unknown', undefined],
    ]);
    expect((await b.store.get('reviewer', 'task-a'))?.owner).toBe('alice');
    expect((await b.store.ownersOf('other-agent', ['task-a'])).get('task-a')).toBeUndefined();

    a.store.claimContext('reviewer', 'ctx-1', 'alice', Date.now());
    await until(() => a.store.pendingWrites === 0, 'claim written');
    b.store.claimContext('reviewer', 'ctx-1', 'bob', Date.now());
    await until(() => b.store.pendingWrites === 0, 'claim written');
    expect((await b.store.contextOwnersOf('reviewer', ['ctx-1'])).get('ctx-1')).toBe('alice');
  });

  it('an owner lookup that finds nothing asks once more after ownerReadRetry (a write still on its way)', async () => {
    const [a, b] = await pair({ ownerReadRetry: 1_000 });
    // b asks first and finds nothing; a's write lands meanwhile; b's second read finds it.
    const asked = b.store.ownersOf('reviewer', ['late']);
    await a.store.observe('reviewer', 'late', { state: S('WORKING'), at: Date.now(), principal: 'alice', shown: true });
    expect((await asked).get('late')).toBe('alice');
    // Without the retry the same race answers "no owner" (the task would count as unknown).
    const [c, d] = await pair({ ownerReadRetry: 0 });
    const once = d.store.ownersOf('reviewer', ['late-too']);
    await c.store.observe('reviewer', 'late-too', {
      state: S('WORKING'),
      at: Date.now(),
      principal: 'alice',
      shown: true,
    });
    expect((await once).get('late-too')).toBeUndefined();
  });

  it('one replica exports the census; it counts tasks by state, with the oldest unfinished', async () => {
    const [a, b] = await pair();
    await a.store.observe('runner', 'w1', { state: S('WORKING'), at: 10_000, shown: true });
    await b.store.observe('runner', 'w2', { state: S('WORKING'), at: 40_000, shown: true });
    await b.store.observe('runner', 'done', { state: S('COMPLETED'), at: 50_000, shown: true });
    const first = await a.store.census(['runner', 'idle'], 60_000);
    expect(await b.store.census(['runner', 'idle'], 60_000)).toBeUndefined();
    // A view (the console's Fleet) counts on any replica and takes no lease.
    const view = await b.store.census(['runner'], 60_000, 'view');
    expect(view!.census.get('runner')!.get(S('WORKING'))!.count).toBe(2);
    expect(await b.store.census(['runner'], 60_000)).toBeUndefined();
    const runner = first!.census.get('runner')!;
    expect(runner.get(S('WORKING'))).toEqual({ count: 2, oldestSince: 10_000 });
    expect(runner.get(S('COMPLETED'))).toEqual({ count: 1 });
    expect(first!.census.get('idle')?.size).toBe(0);
  });

  it('holds at most tasks.maxTracked tasks, evicting the least recently seen (unfinished ones as events)', async () => {
    const [a, b] = await pair({}, { maxTasks: 3, ttlMs: 3_600_000 });
    const evicted: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = i % 2 ? b : a;
      const events = await r.store.observe('runner', `t${i}`, { state: S('WORKING'), at: 1_000 + i, shown: true });
      evicted.push(...events.filter((e) => e.type === 'evicted').map((e) => e.story.taskId));
    }
    expect(evicted).toEqual(['t0', 't1']);
    const { census } = (await a.store.census(['runner'], 2_000))!;
    expect(census.get('runner')!.get(S('WORKING'))!.count).toBe(3);
    expect(await a.store.get('runner', 't0')).toBeUndefined();
    // Memory in Redis: three stories, three index entries, one state set.
    const prefix = a.config.keyPrefix;
    expect(await a.client.keys(`${prefix}task:*`)).toHaveLength(3);
    expect(await a.client.zcard(`${prefix}tasks`)).toBe(3);
    expect(await a.client.zcard(`${prefix}state:runner:${S('WORKING')}`)).toBe(3);
  });

  it('forgets tasks not seen for tasks.ttl', async () => {
    const [a] = await pair({}, { maxTasks: 100, ttlMs: 1_000 });
    await a.store.observe('runner', 'old', { state: S('WORKING'), at: 1_000, shown: true });
    const { census, events } = (await a.store.census(['runner'], 5_000))!;
    expect(census.get('runner')!.size).toBe(0);
    expect(events.map((e) => [e.type, e.story.taskId])).toEqual([['evicted', 'old']]);
  });
});

describe('when Redis goes away', () => {
  it('queues writes (bounded), fails reads it cannot answer, and catches up when Redis is back', async () => {
    const [a, b] = await pair({ maxPending: 3 });
    await a.store.observe('reviewer', 'known', {
      state: S('WORKING'),
      at: Date.now(),
      principal: 'alice',
      shown: true,
    });
    await redis.stop();
    await until(() => !a.status.up && !b.status.up, 'both replicas see Redis down');

    const queued = a.store.observe('reviewer', 'during', {
      state: S('WORKING'),
      at: Date.now(),
      principal: 'alice',
      shown: true,
    });
    a.store.observe('reviewer', 'during', { state: S('COMPLETED'), at: Date.now() + 1, shown: true });
    a.store.claimContext('reviewer', 'ctx-down', 'alice', Date.now());
    // The fourth write finds the queue full: dropped at once, and counted.
    expect(await a.store.observe('reviewer', 'dropped', { state: S('WORKING'), at: Date.now(), shown: true })).toEqual(
      [],
    );
    expect(a.status.errors.write).toBe(1);

    // An owner this replica learned answers without Redis; one it must ask Redis for cannot.
    expect((await a.store.ownersOf('reviewer', ['known'])).get('known')).toBe('alice');
    await expect(b.store.ownersOf('reviewer', ['known'])).rejects.toBeInstanceOf(StoreUnavailable);
    expect(b.status.errors.read).toBeGreaterThan(0);
    await expect(b.store.census(['reviewer'], Date.now())).rejects.toBeInstanceOf(StoreUnavailable);

    await redis.start(); // empty: this test's Redis keeps nothing on disk
    await until(() => a.status.up && b.status.up, 'both replicas reconnected');
    expect(said(await queued)).toEqual([{ type: 'state', to: S('WORKING'), task: 'during' }]);
    await until(() => a.store.pendingWrites === 0, 'queue drained');
    const story = await b.store.get('reviewer', 'during');
    expect(story?.states.map((s) => s.state)).toEqual([S('WORKING'), S('COMPLETED')]);
    expect(story?.owner).toBe('alice');
    expect((await b.store.contextOwnersOf('reviewer', ['ctx-down'])).get('ctx-down')).toBe('alice');
    // New tasks are tracked again.
    await b.store.observe('reviewer', 'after', { state: S('WORKING'), at: Date.now(), principal: 'bob', shown: true });
    expect((await a.store.ownersOf('reviewer', ['after'])).get('after')).toBe('bob');
  });
});

describe('shared rate limits', () => {
  it('count once for every replica; while Redis is down each counts in memory', async () => {
    const [a, b] = await pair();
    const config = { requests: 5, per: 60_000, burst: 0 };
    const keyPrefix = `rl-${Date.now()}:`;
    const limits = [a, b].map((r) => new RateLimit('agent', config, { client: r.client, keyPrefix }));
    const verdicts = [];
    for (let i = 0; i < 10; i++) verdicts.push(await limits[i % 2]!.take('caller'));
    expect(verdicts.filter((v) => v.ok)).toHaveLength(5);
    expect(verdicts.slice(5).every((v) => !v.ok && v.retryAfterSeconds >= 1)).toBe(true);

    // Redis down: neither refuses everyone nor admits everyone; each replica's memory counts.
    await redis.stop();
    await until(() => !a.status.up && !b.status.up, 'Redis down');
    const whileDown = [];
    for (let i = 0; i < 12; i++) whileDown.push(await limits[i % 2]!.take('other-caller'));
    expect(whileDown.filter((v) => v.ok)).toHaveLength(10); // 5 per replica
    await redis.start();
    await until(() => a.status.up && b.status.up, 'Redis back');
  });
});
