/**
 * The task timeline end to end (issue #15): real SDK agents (the demo fleet, the test peer)
 * behind an in-process gateway, the timeline read through `mountTaskTimeline` on a local hono
 * app (the lead mounts it on the admin listener). What it shows: the demo's review task with
 * its two calls; a streamed task's states and artifact ticks as the events went by; and a task
 * the timeout rescue answered (settled, and at the client's deadline), whose first state only
 * the gateway saw (hollow).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Hono } from 'hono';
import { request } from 'undici';
import { startDemoFleet, type DemoFleet } from '../../src/demo/fleet.js';
import { runDemoAgainst } from '../../src/demo/client.js';
import { startPeerV1 } from '../peers/peer-v1.js';
import type { Peer } from '../peers/peer-common.js';
import { startTestGateway } from '../support/gateway.js';
import type { RunningGateway } from '../../src/gateway/gateway.js';
import { RecentExchanges } from '../../src/inspect/recent.js';
import { mountTaskTimeline } from '../../src/console/timeline-route.js';
import type { TaskTimeline } from '../../src/console/api-types.js';

let fleet: DemoFleet;
let peer: Peer;
let pollingPeer: Peer;
let gateway: RunningGateway;
const recent = new RecentExchanges(100);
const app = new Hono();

beforeAll(async () => {
  fleet = await startDemoFleet({ basePort: 0, reviewerStepMs: 50 });
  peer = await startPeerV1();
  pollingPeer = await startPeerV1({ streaming: false });
  const rescue = { enabled: true, clientTimeout: '1s', margin: '200ms', pollInitial: '50ms', pollMax: '100ms' };
  gateway = await startTestGateway(
    {
      'code-reviewer': { url: fleet.agents['code-reviewer'] },
      peer: { url: peer.url },
      slow: { url: pollingPeer.url, timeoutRescue: { ...rescue, strategy: 'poll' } },
    },
    {},
    [recent.observer],
  );
  mountTaskTimeline(app, { tracker: gateway.tracker, recent });
});
afterAll(async () => {
  await gateway?.close();
  await Promise.all([fleet?.close(), peer?.close(), pollingPeer?.close()]);
});

const headers = { 'content-type': 'application/json', 'a2a-version': '1.0' };
const rpc = (method: string, text: string) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id: 'r1',
    method,
    params: { message: { messageId: `m-${method}-${text}`, role: 'ROLE_USER', parts: [{ text }] } },
  });

/** The timeline once the tracker has recorded what `until` wants (its writes are not waited for). */
async function timeline(agent: string, taskId: string, until: (t: TaskTimeline) => boolean): Promise<TaskTimeline> {
  for (;;) {
    const res = await app.request(`/console/api/tasks/${agent}/${taskId}`);
    if (res.status === 200) {
      const body = (await res.json()) as TaskTimeline;
      if (until(body)) return body;
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const S = (state: string) => `TASK_STATE_${state}`;

describe('the task timeline', () => {
  it('the demo’s review task: INPUT_REQUIRED then COMPLETED, both shown, on two calls', async () => {
    const outcomes = await runDemoAgainst(`${gateway.url}/agents/code-reviewer/`, () => {});
    const taskId = outcomes[1]!.taskId!;
    expect(outcomes[2]!.state).toBe('COMPLETED');
    const t = await timeline('code-reviewer', taskId, (b) => b.durationMs !== undefined && b.calls.length === 2);
    expect(t.states.map(({ state, shown }) => ({ state, shown }))).toEqual([
      { state: S('INPUT_REQUIRED'), shown: true },
      { state: S('COMPLETED'), shown: true },
    ]);
    expect(t.interruptedMs[S('INPUT_REQUIRED')]).toBeGreaterThanOrEqual(0);
    const [diff, followUp] = t.calls;
    expect(diff).toMatchObject({ method: 'SendMessage', blocking: true, stream: false });
    expect(diff!.states.map((s) => s.state)).toEqual([S('INPUT_REQUIRED')]);
    expect(diff!.states[0]!.at).toBe(diff!.endedAt); // a reply shows its one state at its end
    expect(followUp!.states.map((s) => s.state)).toEqual([S('COMPLETED')]);
    expect(followUp!.startedAt).toBeGreaterThanOrEqual(diff!.endedAt);
    // COMPLETED starts at the agent's own status.timestamp (src/tasks/agent-time.ts): during the
    // follow-up, at or before the reply that showed it.
    expect(t.states[1]!.at).toBeLessThanOrEqual(followUp!.endedAt);
    expect(t.states[1]!.at).toBeGreaterThanOrEqual(followUp!.startedAt - 5);
  });

  it('a streamed task: SUBMITTED, WORKING, COMPLETED as the events went by, and artifact ticks', async () => {
    const res = await request(`${gateway.url}/agents/peer/a2a/jsonrpc`, {
      method: 'POST',
      headers: { ...headers, accept: 'text/event-stream' },
      body: rpc('SendStreamingMessage', 'sleep:100 streamed'),
    });
    const body = await res.body.text();
    const taskId = /"taskId":"([^"]+)"/.exec(body)![1]!;
    const t = await timeline('peer', taskId, (b) => b.durationMs !== undefined && b.calls.length === 1);
    expect(t.states.map((s) => [s.state, s.shown])).toEqual([
      [S('SUBMITTED'), true],
      [S('WORKING'), true],
      [S('COMPLETED'), true],
    ]);
    const [call] = t.calls;
    expect(call).toMatchObject({ method: 'SendStreamingMessage', stream: true });
    // The call's marks are the story's times: each state when its event went by.
    expect(call!.states).toEqual(t.states.map(({ state, at }) => ({ state, at })));
    expect(call!.artifactsAt).toHaveLength(2); // chunk 1, then chunk 2 a step later
    const [working, completed] = [call!.states[1]!.at, call!.states[2]!.at];
    expect(call!.artifactsAt[0]).toBeGreaterThanOrEqual(working);
    expect(call!.artifactsAt[1]).toBeGreaterThanOrEqual(call!.artifactsAt[0]!);
    expect(completed).toBeGreaterThanOrEqual(call!.artifactsAt[1]!);
    expect(completed).toBeLessThanOrEqual(call!.endedAt);
  });

  it('a task the timeout rescue answered: its first state only the gateway saw (hollow)', async () => {
    const res = await request(`${gateway.url}/agents/slow/a2a/jsonrpc`, {
      method: 'POST',
      headers,
      body: rpc('SendMessage', 'sleep:100 rescued'),
    });
    const doc = (await res.body.json()) as { result: { task: { id: string; status: { state: string } } } };
    expect(res.headers['a2a-gateway-rescue']).toBe('settled');
    const taskId = doc.result.task.id;
    const t = await timeline('slow', taskId, (b) => b.states.at(-1)?.shown === true && b.calls.length === 1);
    // SUBMITTED is the state of the rescue's returnImmediately send (the SDK answers it with the
    // opening task): the client never got that reply, so it is hollow. A WORKING the polls caught
    // is hollow too. COMPLETED was first seen by a poll (hollow), then filled — after terminal —
    // when the rescue's answer, the one reply the client's blocking send got, showed it.
    expect(t.states[0]).toMatchObject({ state: S('SUBMITTED'), shown: false });
    expect(t.states.slice(0, -1).every((s) => !s.shown)).toBe(true);
    expect(t.states.at(-1)).toMatchObject({ state: S('COMPLETED'), shown: true });
    expect(t.calls[0]).toMatchObject({ method: 'SendMessage', blocking: true, stream: false, rescue: 'settled' });
    expect(t.calls[0]!.states.map((s) => s.state)).toEqual([S('COMPLETED')]);
    // The story keeps when the gateway first saw COMPLETED; the call, when the client was shown it.
    expect(t.states.at(-1)!.at).toBeLessThanOrEqual(t.calls[0]!.states[0]!.at);
  });

  it('a task slower than the client’s deadline: the rescue answers WORKING (filled), SUBMITTED stays hollow', async () => {
    const res = await request(`${gateway.url}/agents/slow/a2a/jsonrpc`, {
      method: 'POST',
      headers,
      body: rpc('SendMessage', 'sleep:1500 past the deadline'),
    });
    const doc = (await res.body.json()) as { result: { task: { id: string; status: { state: string } } } };
    expect(res.headers['a2a-gateway-rescue']).toBe('deadline');
    expect(doc.result.task.status.state).toBe(S('WORKING'));
    const t = await timeline('slow', doc.result.task.id, (b) => b.calls.length === 1 && b.states.at(-1)!.shown);
    // SUBMITTED: only the rescue's returnImmediately send saw it. WORKING: first seen by the polls
    // (hollow), filled when the answer at the client's deadline showed that snapshot.
    expect(t.states.map((s) => [s.state, s.shown])).toEqual([
      [S('SUBMITTED'), false],
      [S('WORKING'), true],
    ]);
    expect(t.durationMs).toBeUndefined();
    expect(t.calls[0]).toMatchObject({ rescue: 'deadline', states: [{ state: S('WORKING') }] });
  });

  it('answers 404 for a task it does not track', async () => {
    const res = await app.request('/console/api/tasks/peer/no-such-task');
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: { code: 404, status: 'NOT_FOUND' } });
  });
});
