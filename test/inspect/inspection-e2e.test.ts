/**
 * Inspection end to end: real SDK clients and agents through the gateway, and the exchange
 * records it keeps. Tags, ids, states and event counts must match what the client saw.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
import { collect, within, withDeadline } from '../peers/deadline.js';
import { asMessage, asTask, stateName } from '../peers/inspect.js';
import { startTestGateway } from '../support/gateway.js';
import type { RunningGateway } from '../../src/gateway/gateway.js';
import type { Exchange, ExchangeObserver } from '../../src/exchange/exchange.js';
import type { ExchangeRecord } from '../../src/exchange/record.js';

const STEP = 30;
const TRANSPORTS: TransportName[] = ['JSONRPC', 'HTTP+JSON'];

function recorder(): { observer: ExchangeObserver; records: ExchangeRecord[]; last(op: string): ExchangeRecord } {
  const records: ExchangeRecord[] = [];
  return {
    records,
    observer: { onFinish: (ex: Exchange) => void records.push(ex.record) },
    last: (op) => {
      const found = records.filter((r) => r.a2a?.operation === op).at(-1);
      if (!found) throw new Error(`no ${op} exchange recorded; saw ${records.map((r) => r.a2a?.operation).join(', ')}`);
      return found;
    },
  };
}

describe.each(TRANSPORTS)('A2A 1.0 over %s', (transport) => {
  let peer: Peer;
  let gateway: RunningGateway;
  const rec = recorder();
  beforeAll(async () => {
    peer = await startPeerV1({ stepMs: STEP });
    gateway = await startTestGateway({ reviewer: { url: peer.url } }, {}, [rec.observer]);
  });
  afterAll(async () => {
    await gateway.close();
    await peer.close();
  });
  const client = () => withDeadline(clientV1(`${gateway.url}/agents/reviewer/`, { transport }), 5000, 'card');
  const send = async (text: string, taskId?: string) =>
    (await client()).sendMessage(sendRequestV1(userMessageV1(text, { taskId })), within(5000));
  const binding = transport === 'JSONRPC' ? 'jsonrpc' : 'rest';

  it('tags a question as a direct message', async () => {
    const msg = asMessage(await send('is it cached?'));
    const r = rec.last('SendMessage');
    expect(r.a2a).toMatchObject({ binding, version: '1.0', kind: 'message', messageId: expect.any(String) });
    expect(r.a2a!.taskId).toBeUndefined();
    expect(r.a2a!.contextId).toBe(msg.contextId);
  });

  it('tags a blocking task with its id and final state', async () => {
    const task = asTask(await send('process this'));
    expect(rec.last('SendMessage').a2a).toMatchObject({
      kind: 'task',
      taskId: task.id,
      contextId: task.contextId,
      state: 'TASK_STATE_COMPLETED',
      blocking: true,
    });
  });

  it('counts the events of a task stream exactly as the client received them', async () => {
    const c = await client();
    const events = await collect(
      c.sendMessageStream(sendRequestV1(userMessageV1('stream this')), within(5000)),
      5000,
      'stream',
    );
    const counts = { task: 0, message: 0, statusUpdate: 0, artifactUpdate: 0, error: 0 };
    for (const e of events) counts[e.payload!.$case as keyof typeof counts]++;
    const r = rec.last('SendStreamingMessage');
    expect(r.a2a).toMatchObject({ kind: 'task', state: 'TASK_STATE_COMPLETED' });
    expect(r.a2a!.stream!.events).toEqual(counts);
    expect(r.a2a!.stream!.firstEventMs).toBeGreaterThan(0);
    expect(r.findings).toEqual([]);
  });

  it('follows an input-required task and its follow-up as one task story', async () => {
    const first = asTask(await send('needs input'));
    expect(rec.last('SendMessage').a2a!.state).toBe('TASK_STATE_INPUT_REQUIRED');
    await new Promise((r) => setTimeout(r, 50)); // the task waits for the client a little
    const second = asTask(await send('details', first.id));
    expect(stateName(second.status?.state)).toBe('COMPLETED');
    const story = (await gateway.tracker.store.get('reviewer', first.id))!;
    expect(story.states.map((s) => s.state)).toEqual(['TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_COMPLETED']);
    expect(story.interruptedMs['TASK_STATE_INPUT_REQUIRED']).toBeGreaterThanOrEqual(50);
    expect(story.durationMs).toBeGreaterThanOrEqual(story.interruptedMs['TASK_STATE_INPUT_REQUIRED']!);
    // The same story over HTTP, for operators.
    const res = await fetch(`${gateway.adminUrl}/tasks/reviewer/${first.id}`);
    expect(await res.json()).toMatchObject({ taskId: first.id, durationMs: story.durationMs });
    expect((await fetch(`${gateway.adminUrl}/tasks/reviewer/unknown-task`)).status).toBe(404);
  });

  it('records an agent error by its A2A code or reason', async () => {
    const c = await client();
    await expect(c.getTask({ tenant: '', id: 'no-such-task' }, within(2000))).rejects.toThrow();
    const r = rec.last('GetTask');
    expect(r.a2a!.kind).toBe('error');
    if (binding === 'jsonrpc') expect(r.a2a!.error!.code).toBe(-32001);
    else expect(r.a2a!.error!.reason).toBe('TASK_NOT_FOUND');
  });
});

describe.each(TRANSPORTS)('A2A 0.3 over %s', (transport) => {
  let peer: Peer;
  let gateway: RunningGateway;
  const rec = recorder();
  beforeAll(async () => {
    peer = await startPeerV03({ stepMs: STEP });
    gateway = await startTestGateway({ legacy: { url: peer.url } }, {}, [rec.observer]);
  });
  afterAll(async () => {
    await gateway.close();
    await peer.close();
  });
  const client = () => withDeadline(clientV03(`${gateway.url}/agents/legacy/`, { transport }), 5000, 'card');
  const send = async (text: string): Promise<Message | Task> =>
    (await client()).sendMessage(sendParamsV03(userMessageV03(text)), within(5000));

  it('tags a question as a direct message and a task with its normalised state', async () => {
    expect((await send('what?')).kind).toBe('message');
    expect(rec.last('SendMessage').a2a).toMatchObject({ version: '0.3', kind: 'message' });
    const task = await send('process this');
    expect(rec.last('SendMessage').a2a).toMatchObject({
      version: '0.3',
      kind: 'task',
      taskId: (task as Task).id,
      state: 'TASK_STATE_COMPLETED',
    });
  });

  it('counts a 0.3 stream and flags events after the terminal state (misbehave)', async () => {
    const c = await client();
    const events = await collect(
      c.sendMessageStream(sendParamsV03(userMessageV03('misbehave')), within(5000)),
      5000,
      'stream',
    );
    const r = rec.last('SendStreamingMessage');
    const seen = r.a2a!.stream!.events;
    expect(seen.task + seen.message + seen.statusUpdate + seen.artifactUpdate).toBe(events.length);
    expect(r.findings.map((f) => f.rule)).toContain('a2a.stream-event-after-terminal');
  });
});
