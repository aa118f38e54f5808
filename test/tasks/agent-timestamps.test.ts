/**
 * Over real sockets: a real @a2a-js/sdk agent stamps each status it publishes (status.timestamp,
 * §4.1.2); a task it finishes while nobody polls gets the duration the agent measured, not the
 * time until the client next asked (src/tasks/agent-time.ts). Read through the admin listener's
 * `/tasks/{agent}/{taskId}`.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway } from '../support/gateway.js';
import type { RunningGateway } from '../../src/gateway/gateway.js';
import type { TaskStory } from '../../src/tasks/story.js';
import { startCountingAgent, type CountingAgent } from '../idempotency/support/counting-agent.js';
import { sendJsonRpc, taskOf } from '../idempotency/support/rpc.js';
import { pollUntil } from '../peers/deadline.js';

let agent: CountingAgent;
let gateway: RunningGateway;

beforeAll(async () => {
  agent = await startCountingAgent();
  gateway = await startTestGateway({ stamped: { url: agent.url } });
});
afterAll(async () => {
  await gateway?.close();
  await agent?.close();
});

const getTask = async (taskId: string) => {
  const res = await fetch(`${gateway.url}/agents/stamped/a2a/jsonrpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'GetTask', params: { id: taskId } }),
    signal: AbortSignal.timeout(5_000),
  });
  return (await res.json()) as { result: { status: { state: string; timestamp: string } } };
};

const storyOf = (taskId: string) =>
  pollUntil(
    async () => {
      const res = await fetch(`${gateway.adminUrl}/tasks/stamped/${taskId}`, { signal: AbortSignal.timeout(5_000) });
      return res.status === 200 ? ((await res.json()) as TaskStory) : undefined;
    },
    (story) => story?.durationMs !== undefined,
    5_000,
    'the settled story',
  );

describe('task durations from the agent status timestamps', () => {
  it('a task polled long after it completed lasted as long as the agent says', async () => {
    const sent = await sendJsonRpc(`${gateway.url}/agents/stamped`, 'wait:100 stamp me', { returnImmediately: true });
    const taskId = taskOf(sent).id;
    await sleep(1_500); // nobody asks while the agent completes the task
    const got = await getTask(taskId);
    expect(got.result.status.state).toBe('TASK_STATE_COMPLETED');
    const story = (await storyOf(taskId))!;
    const completed = story.states.at(-1)!;
    expect(completed.state).toBe('TASK_STATE_COMPLETED');
    expect(completed.at).toBe(Date.parse(got.result.status.timestamp));
    expect(story.durationMs).toBeLessThan(1_000);
    expect(story.lastSeen - story.firstSeen).toBeGreaterThanOrEqual(1_400);
  });
});
