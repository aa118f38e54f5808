// The SDK 1.3.0 peer with its v0.3 compatibility layer on: 0.3.14 clients (no A2A-Version
// header) and 1.3.0 clients (A2A-Version: 1.0) share the same URLs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPeerV1 } from './peer-v1.js';
import type { Peer } from './peer-common.js';
import { asBase, clientV03, clientV1, sendRequestV1, userMessageV1, type TransportName } from './clients.js';
import { within, withDeadline } from './deadline.js';
import { asMessage, asTask, stateName, texts, trace } from './inspect.js';
import { lastChunk, sdkScenariosV03, senderV03, senderV1, STREAMED_TASK_V1, streamV1, task03 } from './scenarios.js';

const STEP = 30;
const TRANSPORTS: TransportName[] = ['JSONRPC', 'HTTP+JSON'];

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
  const send = senderV03(client);

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

  sdkScenariosV03(client, { transport });

  it('still serves 1.0 clients on the same URLs', async () => {
    const c = await withDeadline(clientV1(asBase(peer.url), { transport }), 5000, 'card');
    expect(c.protocolVersion).toBe('1.0');
    const task = asTask(await c.sendMessage(sendRequestV1(userMessageV1('modern')), within(5000)));
    expect(stateName(task.status?.state)).toBe('COMPLETED');
  });
});

describe('SDK 1.3.0 peer in compat mode over gRPC, 1.3.0 client with legacyCompat on the 0.3 interface', () => {
  let peer: Peer;
  beforeAll(async () => {
    peer = await startPeerV1({ compatV03: true, grpc: true, stepMs: STEP });
  });
  afterAll(() => peer.close());
  const client = () =>
    withDeadline(
      clientV1(asBase(peer.url), { transport: 'GRPC', legacyCompat: true, onlyProtocolVersion: '0.3' }),
      5000,
      'card resolution',
    );
  const send = senderV1(client);

  it('advertises gRPC at 1.0 and at 0.3 on the same address', async () => {
    const res = await fetch(`${peer.url}/.well-known/agent-card.json`, {
      headers: { 'A2A-Version': '1.0' },
      ...within(2000),
    });
    const card = (await res.json()) as {
      supportedInterfaces: Array<{ url: string; protocolBinding: string; protocolVersion: string }>;
    };
    const grpc = card.supportedInterfaces.filter((i) => i.protocolBinding === 'GRPC');
    expect(grpc.map((i) => [i.url, i.protocolVersion])).toEqual([
      [peer.grpcUrl, '1.0'],
      [peer.grpcUrl, '0.3'],
    ]);
  });

  it('picks the 0.3 gRPC transport and calls the a2a.v1 service with A2A-Version 0.3', async () => {
    const c = await client();
    expect([c.transport.protocolName, c.protocolVersion]).toEqual(['GRPC', '0.3']);
    const before = peer.requests.length;
    expect(texts(asMessage(await send('hi?')).parts)).toEqual(['You asked: hi? Answer: 42.']);
    const seen = peer.requests.slice(before).filter((r) => r.method === 'POST');
    expect(seen.map((r) => r.path)).toEqual(['/a2a.v1.A2AService/SendMessage']);
    expect(seen[0]?.headers['a2a-version']).toBe('0.3');
  });

  it('runs a task to COMPLETED and reads it back with GetTask', async () => {
    const task = asTask(await send('process this'));
    expect(stateName(task.status?.state)).toBe('COMPLETED');
    expect(texts(task.artifacts[0]?.parts)).toHaveLength(2);
    const again = await (await client()).getTask({ tenant: '', id: task.id }, within(2000));
    expect([again.id, stateName(again.status?.state)]).toEqual([task.id, 'COMPLETED']);
  });

  it('streams a task to its end (the 0.3 proto decoder drops append, see lastChunk)', async () => {
    expect(trace(await streamV1(await client(), 'stream this'))).toEqual(STREAMED_TASK_V1(lastChunk('GRPC')));
  });
});
