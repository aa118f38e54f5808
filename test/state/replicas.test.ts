/**
 * Issue #14's proof: a real redis-server, two gateway processes sharing it, and nginx in front
 * of them round-robin, so consecutive calls alternate replicas. The official SDK client sends
 * with returnImmediately and polls until COMPLETED; both replicas then tell one story, the task
 * duration is observed once, ownership holds across replicas, and a rate limit is one limit.
 * Then Redis goes away mid-test: traffic flows on, byte for byte; and comes back.
 * Runs the built CLI (`npm test` builds first).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskState, type Task } from '@a2a-js/sdk';
import { startRedis, type TestRedis } from '../support/redis-server.js';
import { scriptedUpstream } from '../support/scripted-upstream.js';
import { startPeerV1 } from '../peers/peer-v1.js';
import type { Peer } from '../peers/peer-common.js';
import { sendRequestV1, userMessageV1 } from '../peers/clients.js';
import { pollUntil, within } from '../peers/deadline.js';
import { asTask, stateName } from '../peers/inspect.js';
import { clientV1As } from '../access/support/auth-clients.js';
import { PRINCIPALS, call, rpc, wireMessageV1, V1 } from '../access/support/harness.js';
import {
  freePort,
  startBalancer,
  startGatewayProcess,
  sumOf,
  type Balancer,
  type GatewayProcess,
} from './support/replicas.js';

/** A fixed answer: what the gateway relays must be these bytes exactly, Redis or not. */
const FIXED = Buffer.from(
  '{"jsonrpc":"2.0","id":7,"result":{"message":{"messageId":"m-fixed","role":"ROLE_AGENT","parts":[{"text":"same bytes"}]}}}',
);

let redis: TestRedis;
let peer: Peer;
let fixed: { url: string; close: () => Promise<void> };
let replicas: GatewayProcess[] = [];
let lb: Balancer;

function config(lbPort: number): string {
  return `listen: { host: 127.0.0.1, port: 0 }
admin: { listen: { host: 127.0.0.1, port: 0 } }
publicUrl: http://127.0.0.1:${lbPort}
shutdown: { grace: 2s }
log: { access: false }
state:
  store: redis
  redis: { url: "${redis.url}" }
auth:
  apiKeys:
    alice: { key: ${PRINCIPALS.alice.key} }
    bob: { key: ${PRINCIPALS.bob.key} }
agents:
  reviewer: { url: "${peer.url}" }
  limited:
    url: "${peer.url}"
    rateLimit: { requests: 5, per: 1m, burst: 0 }
  fixed: { url: "${fixed.url}", access: { taskOwnership: false } }
`;
}

const metricsOf = (r: GatewayProcess) => fetch(`${r.adminUrl}/metrics`).then((res) => res.text());
const summed = async (name: string, labels: Record<string, string>) =>
  (await Promise.all(replicas.map(metricsOf))).reduce((n, text) => n + sumOf(text, name, labels), 0);
const storyOn = (r: GatewayProcess, taskId: string) =>
  fetch(`${r.adminUrl}/tasks/reviewer/${taskId}`).then((res) => res.json() as Promise<Record<string, unknown>>);
const exchangesOn = async (r: GatewayProcess, taskId: string) =>
  ((await (await fetch(`${r.adminUrl}/exchanges?taskId=${taskId}&limit=100`)).json()) as { exchanges: any[] })
    .exchanges;

/** alice sends with returnImmediately and polls through the balancer until COMPLETED. */
async function pollToCompletion(text: string): Promise<{ task: Task; seen: string[] }> {
  const client = await clientV1As('alice', `${lb.url}/agents/reviewer/`, 'JSONRPC');
  const task = asTask(
    await client.sendMessage(sendRequestV1(userMessageV1(text), { returnImmediately: true }), within(5000)),
  );
  const seen = [stateName(task.status?.state)];
  await pollUntil(
    async () => {
      const polled = await client.getTask({ tenant: '', id: task.id }, within(2000));
      seen.push(stateName(polled.status?.state));
      return polled;
    },
    (t) => t.status?.state === TaskState.TASK_STATE_COMPLETED,
    10_000,
    'task completion',
  );
  return { task, seen };
}

beforeAll(async () => {
  [redis, peer, fixed] = await Promise.all([
    startRedis(),
    startPeerV1({ stepMs: 200 }),
    scriptedUpstream((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(FIXED));
    }),
  ]);
  const lbPort = await freePort();
  replicas = await Promise.all([startGatewayProcess(config(lbPort)), startGatewayProcess(config(lbPort))]);
  lb = await startBalancer(
    replicas.map((r) => r.url),
    lbPort,
  );
}, 60_000);

afterAll(async () => {
  await lb?.stop();
  await Promise.all(replicas.map((r) => r.stop()));
  await Promise.all([redis?.stop(), peer?.close(), fixed?.close()]);
});

describe('two replicas sharing Redis behind a round-robin balancer', () => {
  it('tell one task story, observe its duration once, and hold its owner on both', async () => {
    const durations = { agent: 'reviewer', state: 'TASK_STATE_COMPLETED' };
    const before = await summed('a2a_task_duration_seconds_count', durations);
    const { task, seen } = await pollToCompletion('poll me');
    // Both replicas see the finished task again (one poll each): still one transition.
    const client = await clientV1As('alice', `${lb.url}/agents/reviewer/`, 'JSONRPC');
    for (let i = 0; i < 2; i++) await client.getTask({ tenant: '', id: task.id }, within(2000));

    // The last polls' writes are asynchronous: read until both replicas answer alike (bounded).
    const stories = () => Promise.all(replicas.map((r) => storyOn(r, task.id)));
    const [onA, onB] = await pollUntil(
      stories,
      ([a, b]) => JSON.stringify(a) === JSON.stringify(b),
      5_000,
      'one story',
    );
    expect(onA).toEqual(onB);
    const states = (onA!.states as Array<{ state: string }>).map((s) => s.state.replace('TASK_STATE_', ''));
    expect(states.at(-1)).toBe('COMPLETED');
    for (const state of new Set(seen)) expect(states).toContain(state);
    expect(onA).toMatchObject({ owner: 'alice', durationMs: expect.any(Number) });
    expect(await summed('a2a_task_duration_seconds_count', durations)).toBe(before + 1);

    // Both replicas served the polls (the balancer alternates), each admitting the owner.
    for (const r of replicas) {
      const polls = (await exchangesOn(r, task.id)).filter((e) => e.a2a?.operation === 'GetTask');
      expect(polls.length).toBeGreaterThan(0);
      expect(polls.every((e) => e.access?.principal === 'alice' && e.access?.denied === undefined)).toBe(true);
    }
    // bob is refused on both: "no such task", as for a task never seen.
    for (let i = 0; i < 2; i++) {
      const reply = await call(`${lb.url}/agents/reviewer/a2a/jsonrpc`, 'bob', {
        headers: V1,
        body: rpc('GetTask', { id: task.id }),
      });
      expect((reply.json as { error?: { code: number } }).error?.code).toBe(-32001);
    }
    for (const r of replicas) {
      const refused = (await exchangesOn(r, task.id)).filter((e) => e.access?.principal === 'bob');
      expect(refused.map((e) => e.access.denied)).toEqual(['not-owner']);
    }
  });

  it('limit a caller once across replicas: a burst split over both is limited as one', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) {
      const reply = await call(`${lb.url}/agents/limited/a2a/jsonrpc`, 'alice', {
        headers: V1,
        body: rpc('SendMessage', { message: wireMessageV1('what is A2A?') }),
      });
      statuses.push(reply.status);
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(5);
    expect(await summed('a2a_rate_limited_total', { agent: 'limited' })).toBe(5);
  });

  it('forward byte for byte while Redis is down, say so, and track tasks again once it is back', async () => {
    const direct = Buffer.from(await (await fetch(fixed.url, { method: 'POST', body: '{}' })).arrayBuffer());
    expect(direct.equals(FIXED)).toBe(true);
    await redis.stop();
    const down = async () => (await summed('a2a_state_store_up', {})) === 0;
    await pollUntil(down, (ok) => ok, 10_000, 'both replicas report the store down');

    for (let i = 0; i < 4; i++) {
      const res = await fetch(`${lb.url}/agents/fixed/a2a/jsonrpc`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...V1, authorization: `Bearer ${PRINCIPALS.alice.key}` },
        body: JSON.stringify(rpc('SendMessage', { message: wireMessageV1('same?') }, 7)),
      });
      expect(res.status).toBe(200);
      expect(Buffer.from(await res.arrayBuffer()).equals(FIXED)).toBe(true);
    }
    // A question to an SDK agent still gets its answer (a message: nothing to look up).
    const client = await clientV1As('alice', `${lb.url}/agents/reviewer/`, 'JSONRPC');
    expect(await client.sendMessage(sendRequestV1(userMessageV1('what is A2A?')), within(5000))).toHaveProperty(
      'parts',
    );
    // The log is written in batches, at least once a second (src/log.ts).
    const logged = () => replicas.every((r) => r.log().includes('state store: down'));
    await pollUntil(
      async () => logged(),
      (ok) => ok,
      5_000,
      'both replicas log the store down',
    );

    await redis.start();
    const up = async () => (await summed('a2a_state_store_up', {})) === 2;
    await pollUntil(up, (ok) => ok, 15_000, 'both replicas reconnected');
    const { task } = await pollToCompletion('poll me again');
    const read = () => Promise.all(replicas.map((r) => storyOn(r, task.id)));
    const stories = await pollUntil(read, ([a, b]) => JSON.stringify(a) === JSON.stringify(b), 5_000, 'one story');
    for (const story of stories) expect(story).toMatchObject({ taskId: task.id, owner: 'alice' });
    expect(stories[0]).toEqual(stories[1]);
  });
});
