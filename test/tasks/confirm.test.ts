/**
 * Confirming stale tasks (issue #30 item 5; src/confirm/confirm.ts): with
 * `agents.{name}.tasks.confirm.enabled`, a task no answer has shown for `tasks.unobservedAfter`
 * is asked about by the gateway itself — a GetTask on the interface the card advertises, with the
 * agent's configured headers and none of a caller's — and the story follows what the agent says.
 * Off by default. Real SDK agents (1.0 and 0.3) on loopback, the gateway's own listeners.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { startTestGateway } from '../support/gateway.js';
import type { RunningGateway } from '../../src/gateway/gateway.js';
import { startPeerV1 } from '../peers/peer-v1.js';
import { startPeerV03 } from '../peers/peer-v03.js';
import type { Peer, RecordedRequest } from '../peers/peer-common.js';
import { clientV03, sendParamsV03, userMessageV03 } from '../peers/clients.js';
import { sendJsonRpc, taskOf } from '../idempotency/support/rpc.js';
import { until } from '../state/support/stores.js';
import { GATEWAY_USER_AGENT } from '../../src/version.js';
import { startRedis } from '../support/redis-server.js';
import { scriptedUpstream } from '../support/scripted-upstream.js';
import { Writable } from 'node:stream';
import { pino } from 'pino';

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

const CONFIRM = { tasks: { confirm: { enabled: true, interval: '100ms' } } };
const OWN = { 'x-gateway-credential': 'gateway-own' };
const FAST = { tasks: { unobservedAfter: '300ms' } };

async function gatewayFor(
  agents: Record<string, object>,
  extra: Record<string, unknown> = FAST,
): Promise<RunningGateway> {
  const gateway = await startTestGateway(agents as never, extra);
  closers.push(() => gateway.close());
  await until(() => gateway.registry.cardStates().every((c) => c.state === 'available'), 'cards fetched');
  return gateway;
}

/** A task the 1.0 agent works on for `ms` per step, sent with returnImmediately: the caller sees SUBMITTED only. */
async function startTask(
  gateway: RunningGateway,
  agent: string,
  stepMs: number,
  text = 'do the work',
): Promise<string> {
  const answer = await sendJsonRpc(`${gateway.url}/agents/${agent}`, `sleep:${stepMs} ${text}`, {
    returnImmediately: true,
    headers: { 'x-caller-secret': 'caller-only' },
  });
  const task = taskOf(answer);
  expect(task.status.state).toBe('TASK_STATE_SUBMITTED');
  return task.id;
}

/** The gateway's own calls to the agent's JSON-RPC endpoint (its card fetches are GETs). */
const gatewayPosts = (requests: readonly RecordedRequest[]) =>
  requests.filter((r) => r.method === 'POST' && r.headers['user-agent'] === GATEWAY_USER_AGENT);

const lastState = async (gateway: RunningGateway, agent: string, taskId: string) =>
  (await gateway.tracker.store.get(agent, taskId))?.states.at(-1);

async function confirmations(gateway: RunningGateway, agent: string, outcome: string): Promise<number> {
  const text = await (await fetch(`${gateway.adminUrl}/metrics`)).text();
  const line = text
    .split('\n')
    .find((l) => l.startsWith(`a2a_task_confirmations_total{agent="${agent}",outcome="${outcome}"}`));
  return Number(line?.split(' ').at(-1) ?? 0);
}

async function peerV1(port?: number): Promise<Peer> {
  const peer = await startPeerV1(port === undefined ? {} : { port });
  closers.push(() => peer.close());
  return peer;
}

describe('confirming stale tasks', () => {
  it('follows a task nobody polls to COMPLETED with GetTasks of its own, with the agent’s headers only', async () => {
    const peer = await peerV1();
    const gateway = await gatewayFor({ a: { url: peer.url, headers: OWN, ...CONFIRM } });
    const taskId = await startTask(gateway, 'a', 150);

    await until(async () => (await lastState(gateway, 'a', taskId))?.state === 'TASK_STATE_COMPLETED', 'confirmed');
    const completed = await lastState(gateway, 'a', taskId);
    expect(completed).toMatchObject({ state: 'TASK_STATE_COMPLETED', shown: false });
    expect(await confirmations(gateway, 'a', 'changed')).toBeGreaterThanOrEqual(1);

    const own = gatewayPosts(peer.requests);
    expect(own.length).toBeGreaterThanOrEqual(1);
    for (const call of own) {
      expect(call.headers['x-gateway-credential']).toBe('gateway-own');
      expect(call.headers['x-caller-secret']).toBeUndefined();
      expect(call.headers['a2a-version']).toBe('1.0');
    }
    // The caller's own send did carry its secret: only the gateway's calls go without it.
    expect(peer.requests.some((r) => r.headers['x-caller-secret'] === 'caller-only')).toBe(true);
  });

  it('is off by default: the story stays at what the caller was shown, the agent hears nothing more', async () => {
    const peer = await peerV1();
    const gateway = await gatewayFor({ a: { url: peer.url, headers: OWN } });
    const taskId = await startTask(gateway, 'a', 50);
    await sleep(1000); // the task has long finished at the agent, and is stale at the gateway
    expect((await lastState(gateway, 'a', taskId))?.state).toBe('TASK_STATE_SUBMITTED');
    expect(gatewayPosts(peer.requests)).toEqual([]);
  });

  it('notes TaskNotFound as a refusal and leaves the state, when the agent forgot the task', async () => {
    const first = await peerV1();
    const gateway = await gatewayFor({ a: { url: first.url, ...CONFIRM } });
    const taskId = await startTask(gateway, 'a', 10_000);
    await first.close();
    const again = await peerV1(first.port); // a restarted agent: its in-memory tasks are gone

    await until(async () => ((await gateway.tracker.store.get('a', taskId))?.refused ?? []).length > 0, 'refused');
    const story = await gateway.tracker.store.get('a', taskId);
    expect(story!.refused![0]).toMatchObject({ operation: 'GetTask', reason: 'task-not-found' });
    expect(story!.states.at(-1)!.state).not.toBe('TASK_STATE_COMPLETED');
    expect(await confirmations(gateway, 'a', 'not_found')).toBeGreaterThanOrEqual(1);
    expect(gatewayPosts(again.requests).length).toBeGreaterThanOrEqual(1);
  });

  it('asks a 0.3 agent with tasks/get, on the interface its card advertises', async () => {
    const peer = await startPeerV03();
    closers.push(() => peer.close());
    const gateway = await gatewayFor({ old: { url: peer.url, ...CONFIRM } });
    const client = await clientV03(`${gateway.url}/agents/old/`, { transport: 'JSONRPC' });
    const sent = await client.sendMessage(sendParamsV03(userMessageV03('sleep:150 do the work'), { blocking: false }));
    expect(sent.kind).toBe('task');
    const taskId = (sent as { id: string }).id;

    await until(async () => (await lastState(gateway, 'old', taskId))?.state === 'TASK_STATE_COMPLETED', 'confirmed');
    expect(gatewayPosts(peer.requests).length).toBeGreaterThanOrEqual(1);
    expect(gatewayPosts(peer.requests).every((r) => r.headers['a2a-version'] === undefined)).toBe(true);
  });

  it('two gateways on one Redis ask the agent once per unobservedAfter, not once each', async () => {
    const redis = await startRedis();
    closers.push(() => redis.stop());
    const peer = await peerV1();
    const shared = {
      tasks: { unobservedAfter: '1500ms' },
      state: { store: 'redis', redis: { url: redis.url, keyPrefix: 'confirm-test:' } },
    };
    const agents = { a: { url: peer.url, tasks: { confirm: { enabled: true, interval: '50ms' } } } };
    const [one] = [await gatewayFor(agents, shared), await gatewayFor(agents, shared)];
    await sendJsonRpc(`${one.url}/agents/a`, 'slow work', { returnImmediately: true }); // WORKING for seconds

    await until(() => gatewayPosts(peer.requests).length > 0, 'the first confirmation');
    // Both gateways look every 50 ms; the task is held for the one that picked it for 1.5 s.
    await sleep(500);
    expect(gatewayPosts(peer.requests)).toHaveLength(1);
  });

  it('names the tenant the task was created under (A2A §5.7), as the task’s first call did', async () => {
    const asked: Array<Record<string, unknown>> = [];
    let url = '';
    const agent = await scriptedUpstream(async (req, res) => {
      let raw = '';
      for await (const chunk of req) raw += String(chunk);
      if (req.method === 'GET') {
        const card = {
          name: 't',
          supportedInterfaces: [{ url: `${url}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
        };
        return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(card));
      }
      const { id, method, params } = JSON.parse(raw) as {
        id: unknown;
        method: string;
        params: Record<string, unknown>;
      };
      if (method === 'GetTask') asked.push(params);
      const state = method === 'GetTask' ? 'TASK_STATE_COMPLETED' : 'TASK_STATE_WORKING';
      const task = { id: 't-tenant', contextId: 'c-tenant', status: { state } };
      const result = method === 'GetTask' ? task : { task };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id, result }));
    });
    url = agent.url;
    closers.push(() => agent.close());
    const gateway = await gatewayFor({ t: { url: agent.url, ...CONFIRM } });
    await sendJsonRpc(`${gateway.url}/agents/t`, 'hi', { tenant: 'acme' });

    await until(async () => (await lastState(gateway, 't', 't-tenant'))?.state === 'TASK_STATE_COMPLETED', 'confirmed');
    expect(asked[0]).toEqual({ id: 't-tenant', historyLength: 0, tenant: 'acme' });
  });

  it('counts an agent it cannot reach as failed, and logs it once, not at every look', async () => {
    const peer = await startPeerV1();
    const lines: string[] = [];
    const sink = new Writable({ write: (chunk, _e, done) => (lines.push(String(chunk)), done()) });
    const agents = { a: { url: peer.url, tasks: { confirm: { enabled: true, interval: '50ms' } } } };
    const gateway = await startTestGateway(
      agents,
      { tasks: { unobservedAfter: '200ms' } },
      [],
      pino({ level: 'warn' }, sink),
    );
    closers.push(() => gateway.close());
    await until(() => gateway.registry.cardStates().every((c) => c.state === 'available'), 'cards fetched');
    // Two tasks, so one look fails twice the same way; held for 200 ms, each is tried again after.
    for (const text of ['one', 'two']) await startTask(gateway, 'a', 10_000, text);
    await peer.close();

    await until(async () => (await confirmations(gateway, 'a', 'failed')) >= 4, 'four failed confirmations');
    const logged = lines.filter((l) => l.includes('task confirmation failed'));
    expect(logged).toHaveLength(1);
    expect(JSON.parse(logged[0]!)).toMatchObject({ agent: 'a', err: expect.any(String) });
    expect(await confirmations(gateway, 'a', 'changed')).toBe(0);
  });
});
