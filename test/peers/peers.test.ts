// The SDK 1.3.0 test peer, driven directly by the SDK 1.3.0 client over both transports.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPeerV1 } from './peer-v1.js';
import type { Peer } from './peer-common.js';
import { asBase, clientV1, sendRequestV1, userMessageV1, type TransportName } from './clients.js';
import { within, withDeadline } from './deadline.js';
import { asTask, stateName, trace } from './inspect.js';
import { sdkScenariosV1, senderV1, streamV1 } from './scenarios.js';

const STEP = 30;
const TRANSPORTS: TransportName[] = ['JSONRPC', 'HTTP+JSON'];
/** Where `send` lands, per transport (gRPC: the method path of lf.a2a.v1.A2AService). */
const SEND_PATH: Record<TransportName, string> = {
  JSONRPC: 'POST /a2a/jsonrpc',
  'HTTP+JSON': 'POST /a2a/rest/message:send',
  GRPC: 'POST /lf.a2a.v1.A2AService/SendMessage',
};

describe.each([...TRANSPORTS, 'GRPC' as const])('SDK 1.3.0 peer over %s', (transport) => {
  let peer: Peer;
  beforeAll(async () => {
    peer = await startPeerV1({ stepMs: STEP, slowMs: 400, extendedCard: true, grpc: true });
  });
  afterAll(() => peer.close());
  const client = () => withDeadline(clientV1(asBase(peer.url), { transport }), 5000, 'card resolution');
  const send = senderV1(client);

  // Port 9 (discard): the round trip runs on a parked task, so the peer never calls it.
  sdkScenariosV1(client, { transport, extendedCard: true, pushWebhook: 'http://127.0.0.1:9/hook' });

  it('streams a question as a single message event', async () => {
    expect(trace(await streamV1(await client(), 'streamed question?'))).toEqual(['message']);
  });

  it('drops events published after the terminal one (misbehave)', async () => {
    expect(trace(await streamV1(await client(), 'misbehave'))).toEqual(['task:SUBMITTED', 'status:COMPLETED']);
  });

  it('cancels a task parked in INPUT_REQUIRED', async () => {
    const task = asTask(await send('needs input'));
    const c = await client();
    const canceled = await c.cancelTask({ tenant: '', id: task.id, metadata: undefined }, within(3000));
    expect(stateName(canceled.status?.state)).toBe('CANCELED');
  });

  it('takes about slowMs for a "slow" task', async () => {
    const started = Date.now();
    const task = asTask(await send('slow job'));
    expect(stateName(task.status?.state)).toBe('COMPLETED');
    expect(Date.now() - started).toBeGreaterThanOrEqual(380);
  });

  it('records every request with its headers', async () => {
    const before = peer.requests.length;
    await send('what?');
    const seen = peer.requests.slice(before);
    expect(seen.map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /.well-known/agent-card.json',
      SEND_PATH[transport],
    ]);
    expect(seen.every((r) => r.headers['a2a-version'] === '1.0')).toBe(true);
  });
});

describe('SDK 1.3.0 peer card and mounting', () => {
  it('serves a 1.0 card with absolute interface URLs', async () => {
    const peer = await startPeerV1();
    try {
      const res = await fetch(`${peer.url}/.well-known/agent-card.json`, {
        headers: { 'A2A-Version': '1.0' },
        ...within(2000),
      });
      const card = (await res.json()) as { supportedInterfaces: unknown[]; capabilities: Record<string, unknown> };
      expect(card.supportedInterfaces).toEqual([
        { url: `${peer.url}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' },
        { url: `${peer.url}/a2a/rest`, protocolBinding: 'HTTP+JSON', tenant: '', protocolVersion: '1.0' },
      ]);
      expect(card.capabilities).toMatchObject({ streaming: true, pushNotifications: true, extendedAgentCard: false });
      expect(res.headers.get('vary')).toBeNull();
    } finally {
      await peer.close();
    }
  });

  it('advertises the gRPC binding last and shares its tasks with JSON-RPC', async () => {
    const peer = await startPeerV1({ grpc: true, stepMs: STEP });
    try {
      const res = await fetch(`${peer.url}/.well-known/agent-card.json`, {
        headers: { 'A2A-Version': '1.0' },
        ...within(2000),
      });
      const card = (await res.json()) as { supportedInterfaces: unknown[] };
      expect(peer.grpcUrl).toMatch(/^127\.0\.0\.1:\d+$/);
      expect(card.supportedInterfaces).toHaveLength(3);
      expect(card.supportedInterfaces[2]).toEqual({
        url: peer.grpcUrl,
        protocolBinding: 'GRPC',
        tenant: '',
        protocolVersion: '1.0',
      });
      const rpc = await withDeadline(clientV1(asBase(peer.url), { transport: 'JSONRPC' }), 5000, 'card');
      const task = asTask(await rpc.sendMessage(sendRequestV1(userMessageV1('needs input')), within(5000)));
      const grpc = await withDeadline(clientV1(asBase(peer.url), { transport: 'GRPC' }), 5000, 'card');
      expect(stateName((await grpc.getTask({ tenant: '', id: task.id }, within(2000))).status?.state)).toBe(
        'INPUT_REQUIRED',
      );
      expect(peer.requests.at(-1)).toMatchObject({ method: 'POST', path: '/lf.a2a.v1.A2AService/GetTask' });
    } finally {
      await peer.close();
    }
  });

  it('mounts the whole agent under a prefix', async () => {
    const peer = await startPeerV1({ prefix: '/team/reviewer', stepMs: STEP });
    try {
      expect(peer.url).toBe(`http://127.0.0.1:${peer.port}/team/reviewer`);
      for (const transport of TRANSPORTS) {
        const c = await withDeadline(clientV1(asBase(peer.url), { transport }), 5000, 'card');
        const task = asTask(await c.sendMessage(sendRequestV1(userMessageV1('prefixed')), within(5000)));
        expect(stateName(task.status?.state)).toBe('COMPLETED');
      }
      expect(peer.requests.map((r) => r.path)).toContain('/team/reviewer/a2a/rest/message:send');
    } finally {
      await peer.close();
    }
  });

  it('resolves the card one level up when the base has no trailing slash (SDK behaviour)', async () => {
    const peer = await startPeerV1({ prefix: '/team/reviewer' });
    try {
      await expect(withDeadline(clientV1(peer.url, { transport: 'JSONRPC' }), 5000, 'card')).rejects.toThrow(/404/);
      expect(peer.requests.map((r) => r.path)).toEqual(['/team/.well-known/agent-card.json']);
    } finally {
      await peer.close();
    }
  });

  it('advertises streaming:false and the client falls back to a single result', async () => {
    const peer = await startPeerV1({ streaming: false, stepMs: STEP });
    try {
      const c = await withDeadline(clientV1(asBase(peer.url), { transport: 'JSONRPC' }), 5000, 'card');
      expect(trace(await streamV1(c, 'no stream'))).toEqual(['task:COMPLETED']);
    } finally {
      await peer.close();
    }
  });

  it.each(['JSONRPC', 'GRPC'] as const)('close() returns promptly even with a %s stream in flight', async (t) => {
    const peer = await startPeerV1({ stepMs: 10_000, grpc: true });
    const c = await withDeadline(clientV1(asBase(peer.url), { transport: t }), 5000, 'card');
    const stream = c.sendMessageStream(sendRequestV1(userMessageV1('long one')), within(5000));
    const first = await withDeadline(stream.next(), 3000, 'first event');
    expect(first.done).toBe(false);
    const started = Date.now();
    await withDeadline(peer.close(), 3000, 'close');
    expect(Date.now() - started).toBeLessThan(1000);
    await stream.return(undefined).catch(() => undefined);
  });
});
