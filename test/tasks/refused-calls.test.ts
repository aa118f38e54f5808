/**
 * Over real sockets: calls naming a task that the gateway refuses (task ownership's "not found",
 * a rate limit) go on that task's story as `refused` entries with their reason, read through the
 * admin listener's `/tasks/{agent}/{taskId}`; the task's state does not move (src/tasks/refusal.ts).
 * The agent's own TaskNotFound is decided by the same function, tested below without an agent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../src/gateway/gateway.js';
import type { ExchangeRecord } from '../../src/exchange/record.js';
import { refusalOf, addRefusal, MAX_REFUSALS, type Refusal } from '../../src/tasks/refusal.js';
import type { TaskStory } from '../../src/tasks/story.js';
import { startCountingAgent, type CountingAgent } from '../idempotency/support/counting-agent.js';
import { sendJsonRpc, taskOf } from '../idempotency/support/rpc.js';
import { credentials, startAccessGateway } from '../access/support/harness.js';
import { pollUntil } from '../peers/deadline.js';

let agent: CountingAgent;
let gateway: RunningGateway;

beforeAll(async () => {
  agent = await startCountingAgent();
  gateway = await startAccessGateway({
    guarded: { url: agent.url, access: { allow: ['team-a'] }, rateLimit: { requests: 3, per: '1m' } },
  });
});
afterAll(async () => {
  await gateway?.close();
  await agent?.close();
});

const getTask = async (taskId: string, who: 'alice' | 'bob') => {
  const res = await fetch(`${gateway.url}/agents/guarded/a2a/jsonrpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...credentials(who) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'GetTask', params: { id: taskId } }),
    signal: AbortSignal.timeout(5_000),
  });
  await res.arrayBuffer();
  return res.status;
};

const storyOf = (taskId: string, refusals: number) =>
  pollUntil(
    async () => {
      const res = await fetch(`${gateway.adminUrl}/tasks/guarded/${taskId}`, { signal: AbortSignal.timeout(5_000) });
      return res.status === 200 ? ((await res.json()) as TaskStory) : undefined;
    },
    (story) => (story?.refused?.length ?? 0) >= refusals,
    5_000,
    `${refusals} refusals on the story`,
  );

describe('refused calls on the task timeline', () => {
  it('shows another caller refused and a rate-limited poll, and keeps the state', async () => {
    const sent = await sendJsonRpc(`${gateway.url}/agents/guarded`, 'done at once', { headers: credentials('alice') });
    const taskId = taskOf(sent).id;
    expect(await getTask(taskId, 'bob')).toBe(200); // TaskNotFound in a JSON-RPC 200 (not-owner)
    expect(await getTask(taskId, 'alice')).toBe(200);
    expect(await getTask(taskId, 'alice')).toBe(200);
    expect(await getTask(taskId, 'alice')).toBe(429); // alice's 4th call this minute
    const story = (await storyOf(taskId, 2))!;
    expect(story.refused!.map((r) => [r.reason, r.operation])).toEqual([
      ['not-owner', 'GetTask'],
      ['rate-limited', 'GetTask'],
    ]);
    expect(story.states.map((v) => v.state)).toEqual(['TASK_STATE_COMPLETED']);
  });

  it('makes no story for an id nobody tracked', async () => {
    expect(await getTask('never-seen-task', 'bob')).toBe(200);
    const res = await fetch(`${gateway.adminUrl}/tasks/guarded/never-seen-task`, {
      signal: AbortSignal.timeout(5_000),
    });
    expect(res.status).toBe(404);
  });
});

describe('refusalOf', () => {
  const record = (over: Partial<ExchangeRecord>) => ({ status: 200, ...over }) as ExchangeRecord;
  it.each([
    [{ access: { denied: 'not-owner' } }, 'not-owner'],
    [{ access: { rateLimited: true }, status: 429 }, 'rate-limited'],
    [{ status: 403 }, 'forbidden'],
    [{ a2a: { error: { code: -32001 } } }, 'task-not-found'],
    [{ a2a: { error: { reason: 'TASK_NOT_FOUND' } }, status: 404 }, 'task-not-found'],
    [{ a2a: { error: { grpcStatus: 5 } } }, 'task-not-found'],
    [{ a2a: { error: { code: -32002 } } }, undefined],
    [{}, undefined],
  ] as const)('%j → %s', (over, reason) => {
    expect(refusalOf(record(over as Partial<ExchangeRecord>))).toBe(reason);
  });

  it('keeps the latest refusals only', () => {
    const list: Refusal[] = [];
    for (let i = 0; i < MAX_REFUSALS + 3; i++)
      addRefusal(list, { at: i, reason: 'rate-limited', operation: 'GetTask' });
    expect(list.map((r) => r.at)[0]).toBe(3);
    expect(list).toHaveLength(MAX_REFUSALS);
  });
});
