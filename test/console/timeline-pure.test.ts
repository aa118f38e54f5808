/**
 * taskTimeline (src/console/timeline.ts) on hand-made records, and the route's 503: which calls
 * belong to a task (this agent, its id in the answer or the rescue's), in what order, and what
 * each shows when its record has marks or only a final state.
 */
import { describe, expect, it } from 'vitest';
import { Hono } from 'hono';
import { taskTimeline } from '../../src/console/timeline.js';
import { mountTaskTimeline } from '../../src/console/timeline-route.js';
import { RecentExchanges } from '../../src/inspect/recent.js';
import { StoreUnavailable, TaskTracker, type TaskStore } from '../../src/tasks/tracker.js';
import type { ExchangeRecord } from '../../src/exchange/record.js';
import type { TaskStory } from '../../src/tasks/story.js';
import type { TaskState } from '../../src/a2a/task-state.js';

const S = (state: string) => `TASK_STATE_${state}` as TaskState;

const story: TaskStory = {
  agent: 'a',
  taskId: 't1',
  contextId: 'c1',
  firstSeen: 1_000,
  lastSeen: 3_000,
  states: [
    { state: S('WORKING'), at: 1_000, shown: false },
    { state: S('COMPLETED'), at: 2_900, shown: true },
  ],
  interruptedMs: {},
  durationMs: 1_900,
};

function record(over: Partial<ExchangeRecord> & { id?: string }): ExchangeRecord {
  return {
    agent: 'a',
    httpMethod: 'POST',
    path: '/rpc',
    startedAt: 0,
    status: 200,
    bytesIn: 0,
    bytesOut: 0,
    gatewayKeepalives: 0,
    durationMs: 100,
    outcome: 'complete',
    findings: [],
    ...over,
  } as ExchangeRecord;
}

const facts = (over: Record<string, unknown>) =>
  ({ binding: 'jsonrpc', version: '1.0', kind: 'task', partial: false, ...over }) as ExchangeRecord['a2a'];

describe('taskTimeline', () => {
  it('keeps this agent’s calls on the task, oldest first, with what each showed', () => {
    const records = [
      record({
        id: 'x3',
        startedAt: 2_000,
        durationMs: 500,
        a2a: facts({ operation: 'GetTask', taskId: 't1', state: S('WORKING') }),
      }),
      record({
        id: 'x1',
        startedAt: 900,
        durationMs: 2_000,
        a2a: facts({ operation: 'SendMessage', taskId: 't1', blocking: true, state: S('COMPLETED') }),
        rescue: { strategy: 'poll', outcome: 'settled', taskId: 't1', polls: 3 },
      }),
      record({ id: 'other-agent', agent: 'b', a2a: facts({ operation: 'GetTask', taskId: 't1' }) }),
      record({ id: 'other-task', a2a: facts({ operation: 'GetTask', taskId: 't2' }) }),
      // The client left: no answer named the task, but the rescue knew it.
      record({
        id: 'x2',
        startedAt: 1_500,
        outcome: 'client-gone',
        rescue: { strategy: 'poll', outcome: 'client-gone', taskId: 't1', polls: 1 },
      }),
      record({
        id: 'x4',
        startedAt: 2_600,
        durationMs: 400,
        a2a: {
          ...facts({ operation: 'SubscribeToTask', taskId: 't1', state: S('COMPLETED') })!,
          stream: { events: { task: 1, message: 0, statusUpdate: 1, artifactUpdate: 1, error: 0 }, agentKeepalives: 0 },
          marks: { states: [{ state: S('COMPLETED'), at: 2_900 }], artifactsAt: [2_800] },
        },
      }),
    ];
    const t = taskTimeline(story, records);
    expect(t).toMatchObject({ agent: 'a', taskId: 't1', contextId: 'c1', durationMs: 1_900 });
    expect(t.states).toEqual(story.states);
    expect(t.calls.map((c) => c.exchangeId)).toEqual(['x1', 'x2', 'x3', 'x4']);
    expect(t.calls[0]).toEqual({
      exchangeId: 'x1',
      method: 'SendMessage',
      startedAt: 900,
      endedAt: 2_900,
      blocking: true,
      stream: false,
      rescue: 'settled',
      states: [{ state: S('COMPLETED'), at: 2_900 }],
      artifactsAt: [],
    });
    expect(t.calls[1]).toMatchObject({ method: 'unknown', rescue: 'client-gone', states: [] });
    expect(t.calls[2]).toMatchObject({ method: 'GetTask', states: [{ state: S('WORKING'), at: 2_500 }] });
    expect(t.calls[2]!.blocking).toBeUndefined();
    expect(t.calls[3]).toMatchObject({
      stream: true,
      states: [{ state: S('COMPLETED'), at: 2_900 }],
      artifactsAt: [2_800],
    });
  });
});

describe('the timeline route', () => {
  it('answers 503 when the task store cannot', async () => {
    const store = { get: () => Promise.reject(new StoreUnavailable(new Error('down'))) } as unknown as TaskStore;
    const app = new Hono();
    mountTaskTimeline(app, { tracker: new TaskTracker(store), recent: new RecentExchanges(10) });
    const res = await app.request('/console/api/tasks/a/t1');
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ error: { code: 503, status: 'STATE_UNAVAILABLE' } });
  });
});
