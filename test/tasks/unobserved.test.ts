/**
 * An unfinished task nobody has asked about for `tasks.unobservedAfter` is counted in
 * `a2a_tasks_unobserved`, not as waiting in its state (`a2a_task_oldest_state_age_seconds`, which
 * A2ATaskStuckWorking reads): the alert fires only on a WORKING state an answer recently showed.
 * Over real sockets with a real SDK agent; the census rule itself (story.ts countStory) below it.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway } from '../support/gateway.js';
import type { RunningGateway } from '../../src/gateway/gateway.js';
import { InMemoryTaskStore } from '../../src/tasks/memory-store.js';
import type { TaskState } from '../../src/a2a/task-state.js';
import { startCountingAgent, type CountingAgent } from '../idempotency/support/counting-agent.js';
import { sendJsonRpc, taskOf } from '../idempotency/support/rpc.js';

let agent: CountingAgent;
let gateway: RunningGateway;

beforeAll(async () => {
  agent = await startCountingAgent();
  gateway = await startTestGateway({ quiet: { url: agent.url } }, { tasks: { unobservedAfter: '400ms' } });
});
afterAll(async () => {
  await gateway?.close();
  await agent?.close();
});

/** A send that returns at once shows the task SUBMITTED (SDK 1.3.0); nothing shows it again. */
const WORKING = { agent: 'quiet', state: 'TASK_STATE_SUBMITTED' };
const sample = async (name: string): Promise<number> => {
  const text = await (await fetch(`${gateway.adminUrl}/metrics`, { signal: AbortSignal.timeout(5_000) })).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name}{agent="${WORKING.agent}",state="${WORKING.state}"}`));
  return Number(line?.split(' ').at(-1));
};

describe('unobserved tasks', () => {
  it('an unfinished task nobody polls moves from the state age to the unobserved count', async () => {
    const sent = await sendJsonRpc(`${gateway.url}/agents/quiet`, 'wait:30000 long job', { returnImmediately: true });
    expect(taskOf(sent).status.state).toBe(WORKING.state);
    await sleep(100);
    expect(await sample('a2a_tasks_unobserved')).toBe(0);
    expect(await sample('a2a_task_oldest_state_age_seconds')).toBeGreaterThan(0);
    await sleep(500); // past tasks.unobservedAfter, nobody asked
    expect(await sample('a2a_tasks_unobserved')).toBe(1);
    expect(await sample('a2a_task_oldest_state_age_seconds')).toBe(0);
    expect(await sample('a2a_tasks')).toBe(1); // still tracked, in its last known state
  });
});

describe('the census', () => {
  it('counts an unfinished story seen longer ago than unobservedAfter as unobserved', async () => {
    const store = new InMemoryTaskStore({ maxTasks: 10, ttlMs: 3_600_000, unobservedAfterMs: 1_000 });
    const W = 'TASK_STATE_WORKING' as TaskState;
    await store.observe('a', 'old', { state: W, at: 1_000, shown: true });
    await store.observe('a', 'recent', { state: W, at: 1_500, shown: true });
    await store.observe('a', 'recent', { at: 2_600, shown: true }); // asked again, still WORKING
    const { census } = (await store.census(['a'], 2_700))!;
    expect(census.get('a')!.get(W)).toEqual({ count: 2, unobserved: 1, oldestSince: 1_500 });
  });
});
