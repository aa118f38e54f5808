// The SDK 1.3.0 peer with its v0.3 compatibility layer on: 0.3.14 clients (no A2A-Version
// header) and 1.3.0 clients (A2A-Version: 1.0) share the same URLs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Message, Task } from 'a2a-sdk-v03';
import { startPeerV1 } from './peer-v1.js';
import type { Peer } from './peer-common.js';
import {
  asBase,
  clientV03,
  clientV1,
  sendParamsV03,
  sendRequestV1,
  userMessageV03,
  userMessageV1,
  type TransportName,
} from './clients.js';
import { collect, pollUntil, within, withDeadline } from './deadline.js';
import { asTask, stateName } from './inspect.js';

const STEP = 30;
const TRANSPORTS: TransportName[] = ['JSONRPC', 'HTTP+JSON'];

function task03(result: Message | Task): Task {
  if (result.kind !== 'task') throw new Error('expected a task');
  return result;
}

describe('SDK 1.3.0 peer in compat mode: the card', () => {
  let peer: Peer;
  beforeAll(async () => {
    peer = await startPeerV1({ compatV03: true });
  });
  afterAll(() => peer.close());

  it('serves the hybrid 0.3 card without a version header, with Vary: A2A-Version', async () => {
    const res = await fetch(`${peer.url}/.well-known/agent-card.json`, within(2000));
    expect(res.headers.get('vary')).toBe('A2A-Version');
    const card = (await res.json()) as Record<string, unknown>;
    expect(card).toMatchObject({
      url: `${peer.url}/a2a/jsonrpc`,
      preferredTransport: 'JSONRPC',
      protocolVersion: '0.3',
      additionalInterfaces: [{ url: `${peer.url}/a2a/rest`, transport: 'HTTP+JSON' }],
    });
    expect((card.supportedInterfaces as Array<{ protocolVersion: string }>).map((i) => i.protocolVersion)).toEqual([
      '1.0',
      '1.0',
      '0.3',
      '0.3',
    ]);
  });

  it('serves the 1.0 card to A2A-Version: 1.0', async () => {
    const res = await fetch(`${peer.url}/.well-known/agent-card.json`, {
      headers: { 'A2A-Version': '1.0' },
      ...within(2000),
    });
    expect(res.headers.get('vary')).toBe('A2A-Version');
    const card = (await res.json()) as Record<string, unknown>;
    expect(card.url).toBeUndefined();
    expect(card.supportedInterfaces).toHaveLength(4);
  });
});

describe.each(TRANSPORTS)('SDK 1.3.0 peer in compat mode over %s', (transport) => {
  let peer: Peer;
  beforeAll(async () => {
    peer = await startPeerV1({ compatV03: true, stepMs: STEP });
  });
  afterAll(() => peer.close());
  const client = () => withDeadline(clientV03(asBase(peer.url), { transport }), 5000, 'card resolution');
  const send = async (text: string, opts: { taskId?: string; blocking?: boolean } = {}) =>
    (await client()).sendMessage(sendParamsV03(userMessageV03(text, { taskId: opts.taskId }), opts), within(5000));

  it('answers a 0.3 question with a 0.3 message', async () => {
    const msg = await send('hi?');
    expect(msg).toMatchObject({
      kind: 'message',
      role: 'agent',
      parts: [{ kind: 'text', text: 'You asked: hi? Answer: 42.' }],
    });
  });

  it('runs a 0.3 task to completed, via the 0.3 routes and without a version header', async () => {
    const before = peer.requests.length;
    const task = task03(await send('process this'));
    expect(task.status.state).toBe('completed');
    expect(task.artifacts?.[0]?.parts).toHaveLength(2);
    const seen = peer.requests.slice(before);
    expect(seen.map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /.well-known/agent-card.json',
      transport === 'JSONRPC' ? 'POST /a2a/jsonrpc' : 'POST /a2a/rest/v1/message:send',
    ]);
    expect(seen.every((r) => r.headers['a2a-version'] === undefined)).toBe(true);
  });

  it('completes a follow-up on an input-required task', async () => {
    const first = task03(await send('needs input'));
    expect(first.status.state).toBe('input-required');
    expect(task03(await send('details', { taskId: first.id })).status.state).toBe('completed');
  });

  it('honours blocking:false and tasks/get polling', async () => {
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

  it('streams 0.3 events ending with final:true', async () => {
    const c = await client();
    const events = await collect(
      c.sendMessageStream(sendParamsV03(userMessageV03('stream this')), within(5000)),
      5000,
      'stream',
    );
    expect(events[0]?.kind).toBe('task');
    const last = events.at(-1);
    expect(last?.kind === 'status-update' && last.status.state === 'completed' && last.final).toBe(true);
  });

  it('resubscribes and cancels', async () => {
    const c = await client();
    const followed = task03(await send('sleep:150 follow me', { blocking: false }));
    const events = await collect(c.resubscribeTask({ id: followed.id }, within(5000)), 5000, 'resubscribe');
    const last = events.at(-1);
    expect(last?.kind === 'status-update' && last.status.state).toBe('completed');

    const running = task03(await send('sleep:5000 cancel me', { blocking: false }));
    expect((await c.cancelTask({ id: running.id }, within(3000))).status.state).toBe('canceled');
  });

  it('still serves 1.0 clients on the same URLs', async () => {
    const c = await withDeadline(clientV1(asBase(peer.url), { transport }), 5000, 'card');
    expect(c.protocolVersion).toBe('1.0');
    const task = asTask(await c.sendMessage(sendRequestV1(userMessageV1('modern')), within(5000)));
    expect(stateName(task.status?.state)).toBe('COMPLETED');
  });
});
