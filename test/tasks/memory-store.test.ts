/**
 * The in-memory task store's bounds (src/tasks/memory-store.ts): at most `tasks.maxTracked`
 * stories, the least recently seen forgotten first; a story not seen for `tasks.ttl` forgotten;
 * an unfinished story forgotten either way comes back as an `evicted` event of the call that
 * dropped it. The same cases as the Redis store's (test/state/redis-store.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { InMemoryTaskStore } from '../../src/tasks/memory-store.js';
import type { TaskEvent, TaskSighting } from '../../src/tasks/tracker.js';
import type { TaskState } from '../../src/a2a/task-state.js';

const S = (state: string) => `TASK_STATE_${state}` as TaskState;
const seen = (state: string, at: number): TaskSighting => ({ state: S(state), at, shown: true });
const evicted = (events: TaskEvent[]) => events.filter((e) => e.type === 'evicted').map((e) => e.story.taskId);

describe('the in-memory task store', () => {
  it('holds at most maxTasks stories, evicting the least recently seen (unfinished ones as events)', async () => {
    const store = new InMemoryTaskStore({ maxTasks: 3, ttlMs: 3_600_000 });
    const dropped: string[] = [];
    for (let i = 0; i < 5; i++)
      dropped.push(...evicted(await store.observe('runner', `t${i}`, seen('WORKING', 1_000 + i))));
    expect(dropped).toEqual(['t0', 't1']);
    expect(await store.get('runner', 't0')).toBeUndefined();
    const { census } = await store.census(['runner'], 2_000);
    expect(census.get('runner')!.get(S('WORKING'))!.count).toBe(3);
  });

  it('reports the eviction in the result of the observation that made it, before anything is awaited', () => {
    const store = new InMemoryTaskStore({ maxTasks: 1, ttlMs: 3_600_000 });
    void store.observe('runner', 'first', seen('WORKING', 1_000));
    let events: TaskEvent[] | undefined;
    void store.observe('runner', 'second', seen('WORKING', 1_001)).then((e) => (events = e));
    return Promise.resolve().then(() => {
      expect(events?.map((e) => [e.type, e.story.taskId])).toEqual([
        ['state', 'second'],
        ['evicted', 'first'],
      ]);
    });
  });

  it('a settled story is forgotten without an event', async () => {
    const store = new InMemoryTaskStore({ maxTasks: 1, ttlMs: 3_600_000 });
    await store.observe('runner', 'done', seen('COMPLETED', 1_000));
    expect(evicted(await store.observe('runner', 'next', seen('WORKING', 1_001)))).toEqual([]);
    expect(await store.get('runner', 'done')).toBeUndefined();
  });

  it('only an observation makes a story recent: reads do not keep it', async () => {
    const store = new InMemoryTaskStore({ maxTasks: 2, ttlMs: 3_600_000 });
    await store.observe('runner', 'old', seen('WORKING', 1_000));
    await store.observe('runner', 'new', seen('WORKING', 1_001));
    expect((await store.get('runner', 'old'))?.taskId).toBe('old');
    expect((await store.ownersOf('runner', ['old'])).has('old')).toBe(true);
    expect(evicted(await store.observe('runner', 'third', seen('WORKING', 1_002)))).toEqual(['old']);
  });

  it('forgets stories not seen for ttlMs, at the census (counted on the times it is told)', async () => {
    const store = new InMemoryTaskStore({ maxTasks: 100, ttlMs: 1_000 });
    await store.observe('runner', 'old', seen('WORKING', 1_000));
    await store.observe('runner', 'fresh', seen('WORKING', 4_500));
    const { census, events } = await store.census(['runner'], 5_000);
    expect(census.get('runner')!.get(S('WORKING'))!.count).toBe(1);
    expect(events.map((e) => [e.type, e.story.taskId])).toEqual([['evicted', 'old']]);
    expect(await store.get('runner', 'old')).toBeUndefined();
    expect((await store.get('runner', 'fresh'))?.taskId).toBe('fresh');
  });

  it('a story seen again within ttlMs goes on; one seen again after it starts anew, the old one evicted', async () => {
    const store = new InMemoryTaskStore({ maxTasks: 100, ttlMs: 1_000 });
    await store.observe('runner', 't', seen('SUBMITTED', 1_000));
    await store.observe('runner', 't', seen('WORKING', 1_900));
    expect((await store.get('runner', 't'))?.states.map((v) => v.state)).toEqual([S('SUBMITTED'), S('WORKING')]);
    const events = await store.observe('runner', 't', seen('COMPLETED', 3_000));
    expect(events.map((e) => [e.type, e.story.firstSeen])).toEqual([
      ['state', 3_000],
      ['settled', 3_000],
      ['evicted', 1_000],
    ]);
    const story = (await store.get('runner', 't'))!;
    expect(story.states.map((v) => v.state)).toEqual([S('COMPLETED')]);
  });

  it('forgets a context owner not seen for ttlMs; a claim in time keeps it', async () => {
    const store = new InMemoryTaskStore({ maxTasks: 100, ttlMs: 60_000 });
    const now = Date.now();
    store.claimContext('a', 'stale', 'alice', now - 61_000);
    store.claimContext('a', 'kept', 'alice', now - 61_000);
    store.claimContext('a', 'kept', 'bob', now - 30_000); // seen again in time: still alice's, and recent
    const owners = await store.contextOwnersOf('a', ['stale', 'kept']);
    expect([...owners.values()]).toEqual([undefined, 'alice']);
  });
});
