/**
 * The official SDK clients, given only `http://<gateway>/agents/{name}/`, run every A2A operation
 * against real SDK agents (1.3.0 = A2A 1.0, 0.3.14 = A2A 0.3) through the gateway. Each suite
 * ends by proving the agent saw only the gateway: every request it received after the card
 * carries the gateway's X-Forwarded-For.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskState } from '@a2a-js/sdk';
import type { Message, Task } from 'a2a-sdk-v03';
import { startPeerV1 } from '../peers/peer-v1.js';
import { startPeerV03 } from '../peers/peer-v03.js';
import type { Peer } from '../peers/peer-common.js';
import {
  clientV03,
  clientV1,
  sendParamsV03,
  sendRequestV1,
  userMessageV03,
  userMessageV1,
  type TransportName,
} from '../peers/clients.js';
import { collect, pollUntil, within, withDeadline } from '../peers/deadline.js';
import { asMessage, asTask, stateName, streamTaskId, trace } from '../peers/inspect.js';
import { startTestGateway } from '../support/gateway.js';
import type { RunningGateway } from '../../src/gateway.js';

const STEP = 30;
const TRANSPORTS: TransportName[] = ['JSONRPC', 'HTTP+JSON'];

function expectOnlyGatewayTraffic(peer: Peer, since: number) {
  const seen = peer.requests.slice(since);
  expect(seen.length).toBeGreaterThan(0);
  for (const r of seen) {
    // Either the gateway's own card fetch, or a client request it forwarded.
    if (r.path.includes('/.well-known/')) expect(r.headers['user-agent'], r.path).toMatch(/^a2a-gateway\//);
    else expect(r.headers['x-forwarded-for'], `${r.method} ${r.path}`).toBe('127.0.0.1');
  }
  expect(seen.some((r) => !r.path.includes('/.well-known/'))).toBe(true);
}

describe.each(TRANSPORTS)('A2A 1.0 through the gateway over %s', (transport) => {
  let peer: Peer;
  let gateway: RunningGateway;
  let since = 0;
  beforeAll(async () => {
    peer = await startPeerV1({ stepMs: STEP });
    gateway = await startTestGateway({ reviewer: { url: peer.url } });
    since = peer.requests.length;
  });
  afterAll(async () => {
    await gateway.close();
    await peer.close();
  });
  const client = () =>
    withDeadline(clientV1(`${gateway.url}/agents/reviewer/`, { transport }), 5000, 'card via gateway');
  const send = async (text: string, opts: { taskId?: string; returnImmediately?: boolean } = {}) =>
    (await client()).sendMessage(sendRequestV1(userMessageV1(text, { taskId: opts.taskId }), opts), within(5000));

  it('resolves the card at the gateway and calls the gateway', async () => {
    const c = await client();
    expect(c.transport.protocolName).toBe(transport);
    const card = await c.getAgentCard(within(2000));
    for (const i of card.supportedInterfaces) expect(i.url.startsWith(`${gateway.url}/agents/reviewer/`)).toBe(true);
  });

  it('gets a direct message for a question', async () => {
    expect(asMessage(await send('is this cached?')).parts).toHaveLength(1);
  });

  it('waits for a blocking task to complete', async () => {
    const task = asTask(await send('process this'));
    expect(stateName(task.status?.state)).toBe('COMPLETED');
    expect(task.artifacts[0]?.parts).toHaveLength(2);
  });

  it('returns immediately and completes under GetTask polling', async () => {
    const task = asTask(await send('poll me', { returnImmediately: true }));
    expect(['SUBMITTED', 'WORKING']).toContain(stateName(task.status?.state));
    const c = await client();
    const done = await pollUntil(
      () => c.getTask({ tenant: '', id: task.id }, within(2000)),
      (t) => t.status?.state === TaskState.TASK_STATE_COMPLETED,
      5000,
      'completion',
    );
    expect(done.id).toBe(task.id);
  });

  it('streams a task event by event', async () => {
    const c = await client();
    const events = await collect(
      c.sendMessageStream(sendRequestV1(userMessageV1('stream this')), within(5000)),
      5000,
      'stream',
    );
    expect(trace(events)).toEqual([
      'task:SUBMITTED',
      'status:WORKING',
      'artifact',
      'artifact+append+last',
      'status:COMPLETED',
    ]);
  });

  it('follows a running task with SubscribeToTask', async () => {
    const task = asTask(await send('sleep:150 subscribe to me', { returnImmediately: true }));
    const c = await client();
    const events = await collect(c.resubscribeTask({ tenant: '', id: task.id }, within(5000)), 5000, 'subscription');
    expect(streamTaskId(events)).toBe(task.id);
    expect(trace(events).at(-1)).toBe('status:COMPLETED');
  });

  it('cancels a running task', async () => {
    const task = asTask(await send('sleep:5000 cancel me', { returnImmediately: true }));
    const canceled = await (await client()).cancelTask({ tenant: '', id: task.id, metadata: undefined }, within(3000));
    expect(stateName(canceled.status?.state)).toBe('CANCELED');
  });

  it('answers input-required and completes on the follow-up', async () => {
    const first = asTask(await send('needs input'));
    expect(stateName(first.status?.state)).toBe('INPUT_REQUIRED');
    const second = asTask(await send('details', { taskId: first.id }));
    expect(second.id).toBe(first.id);
    expect(stateName(second.status?.state)).toBe('COMPLETED');
  });

  it('lists tasks', async () => {
    const task = asTask(await send('list me'));
    const list = await (
      await client()
    ).listTasks(
      {
        tenant: '',
        contextId: '',
        status: TaskState.TASK_STATE_UNSPECIFIED,
        pageToken: '',
        statusTimestampAfter: undefined,
      },
      within(2000),
    );
    expect(list.tasks.map((t) => t.id)).toContain(task.id);
  });

  it('never let the client around the gateway', () => {
    expectOnlyGatewayTraffic(peer, since);
  });
});

function task03(result: Message | Task): Task {
  if (result.kind !== 'task') throw new Error(`expected a task, got ${result.kind}`);
  return result;
}

describe.each(TRANSPORTS)('A2A 0.3 through the gateway over %s', (transport) => {
  let peer: Peer;
  let gateway: RunningGateway;
  let since = 0;
  beforeAll(async () => {
    peer = await startPeerV03({ stepMs: STEP });
    gateway = await startTestGateway({ legacy: { url: peer.url } });
    since = peer.requests.length;
  });
  afterAll(async () => {
    await gateway.close();
    await peer.close();
  });
  const client = () =>
    withDeadline(clientV03(`${gateway.url}/agents/legacy/`, { transport }), 5000, 'card via gateway');
  const send = async (text: string, opts: { taskId?: string; blocking?: boolean } = {}) =>
    (await client()).sendMessage(sendParamsV03(userMessageV03(text, { taskId: opts.taskId }), opts), within(5000));

  it('gets a direct message for a question', async () => {
    expect((await send('what is 6x7?')).kind).toBe('message');
  });

  it('waits for a blocking task to complete', async () => {
    expect(task03(await send('process this')).status.state).toBe('completed');
  });

  it('sends non-blocking and completes under tasks/get polling', async () => {
    const task = task03(await send('poll me', { blocking: false }));
    const c = await client();
    const done = await pollUntil(
      () => c.getTask({ id: task.id }, within(2000)),
      (t) => t.status.state === 'completed',
      5000,
      'completion',
    );
    expect(done.id).toBe(task.id);
  });

  it('streams a task with final on the last event', async () => {
    const c = await client();
    const events = await collect(
      c.sendMessageStream(sendParamsV03(userMessageV03('stream this')), within(5000)),
      5000,
      'stream',
    );
    expect(events[0]!.kind).toBe('task');
    const last = events.at(-1)!;
    expect(last.kind === 'status-update' && last.final && last.status.state).toBe('completed');
  });

  it('resubscribes to a running task', async () => {
    const task = task03(await send('sleep:150 resubscribe', { blocking: false }));
    const events = await collect((await client()).resubscribeTask({ id: task.id }, within(5000)), 5000, 'resubscribe');
    const last = events.at(-1)!;
    expect(last.kind === 'status-update' && last.status.state).toBe('completed');
  });

  it('cancels a running task', async () => {
    const task = task03(await send('sleep:5000 cancel me', { blocking: false }));
    expect((await (await client()).cancelTask({ id: task.id }, within(3000))).status.state).toBe('canceled');
  });

  it('answers input-required and completes on the follow-up', async () => {
    const first = task03(await send('needs input'));
    expect(first.status.state).toBe('input-required');
    expect(task03(await send('details', { taskId: first.id })).status.state).toBe('completed');
  });

  it('never let the client around the gateway', () => {
    expectOnlyGatewayTraffic(peer, since);
  });
});

describe('0.3 client through the gateway to a 1.3.0 agent in compat mode', () => {
  it('gets the hybrid card rewritten and completes a task over JSON-RPC', async () => {
    const peer = await startPeerV1({ compatV03: true, stepMs: STEP });
    const gateway = await startTestGateway({ mixed: { url: peer.url } });
    try {
      const c = await withDeadline(clientV03(`${gateway.url}/agents/mixed/`, { transport: 'JSONRPC' }), 5000, 'card');
      const result = await c.sendMessage(sendParamsV03(userMessageV03('process this')), within(5000));
      expect(task03(result).status.state).toBe('completed');
      expect(
        peer.requests.filter((r) => r.method === 'POST').every((r) => r.headers['x-forwarded-for'] === '127.0.0.1'),
      ).toBe(true);
    } finally {
      await gateway.close();
      await peer.close();
    }
  });
});
