// The hostile-client rows of test/hostile/*, on the gRPC listener (issue #16, principle 19): raw
// node:http2 clients (exact frames, exact answers) against the gateway, the real SDK 1.3.0 peer
// (`startPeerV1({ grpc: true })`) or a bare HTTP/2 agent that records how its streams ended.
import { createServer as createNetServer } from 'node:net';
import { constants, type ClientHttp2Session } from 'node:http2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPeerV1 } from '../peers/peer-v1.js';
import type { Peer } from '../peers/peer-common.js';
import { startTestGateway } from '../support/gateway.js';
import { recordExchanges } from '../access/support/harness.js';
import type { RunningGateway } from '../../src/gateway/gateway.js';
import {
  eventually,
  frame,
  getTask,
  grpcHeaders,
  h2,
  rawCall,
  sendMessageRequest,
  SERVICE,
} from './support/raw-grpc.js';
import { startFakeAgent, type FakeAgent } from './support/fake-agent.js';

const GRPC = { RESOURCE_EXHAUSTED: 8, NOT_FOUND: 5, DEADLINE_EXCEEDED: 4, UNAVAILABLE: 14, INVALID_ARGUMENT: 3 };
const MESSAGE_BYTES = 2048;
const STREAMS = 3;

let peer: Peer;
let slow: FakeAgent;
let gw: RunningGateway;
let deadPort: number;
const { observer, records } = recordExchanges();

async function closedPort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

beforeAll(async () => {
  [peer, slow, deadPort] = await Promise.all([startPeerV1({ stepMs: 20, grpc: true }), startFakeAgent(), closedPort()]);
  gw = await startTestGateway(
    {
      reviewer: { url: peer.url, hosts: ['reviewer.test'], grpc: { listen: { port: 0 } } },
      slow: { url: peer.url, grpc: { url: slow.url, listen: { port: 0 } } },
      dead: { url: peer.url, grpc: { url: `127.0.0.1:${deadPort}`, listen: { port: 0 } } },
      deadRescued: {
        url: peer.url,
        timeoutRescue: { enabled: true },
        grpc: { url: `127.0.0.1:${deadPort}`, listen: { port: 0 } },
      },
    },
    {
      listen: { host: '127.0.0.1', port: 0, grpc: { port: 0 } },
      limits: {
        headerCount: 20,
        headerBytes: '4KiB',
        bodyIdle: '300ms',
        connectionsPerClient: 4,
        grpc: { messageBytes: `${MESSAGE_BYTES}B`, concurrentStreams: STREAMS },
      },
    },
    [observer],
  );
});
afterAll(async () => {
  await gw?.close();
  await Promise.all([peer?.close(), slow?.close()]);
});

const portOf = (agent: string): number => gw.grpcPorts.agents.get(agent)!;
const agentCalls = (since: number) => peer.requests.slice(since).filter((r) => r.path.startsWith(SERVICE));

async function withSession<T>(port: number, run: (s: ClientHttp2Session) => Promise<T>): Promise<T> {
  const session = await h2(port);
  try {
    return await run(session);
  } finally {
    session.destroy();
  }
}

describe('gRPC: what one client may send', () => {
  it('a request message over limits.grpc.messageBytes → RESOURCE_EXHAUSTED, BODY_TOO_LARGE; the agent hears nothing', async () => {
    const since = peer.requests.length;
    const reply = await withSession(portOf('reviewer'), (s) =>
      rawCall(s, `${SERVICE}SendMessage`, { body: sendMessageRequest('x'.repeat(MESSAGE_BYTES + 10)) }),
    );
    expect(reply.status).toMatchObject({
      code: GRPC.RESOURCE_EXHAUSTED,
      reason: 'BODY_TOO_LARGE',
      domain: 'a2a-gateway',
    });
    expect(agentCalls(since)).toEqual([]);
  });

  it('holds at most one bounded message per call: a client writing on past the cap is answered and its stream freed', async () => {
    const since = peer.requests.length;
    const chunk = Buffer.alloc(16 * 1024, 1);
    const reply = await withSession(portOf('reviewer'), (s) =>
      rawCall(s, `${SERVICE}SendMessage`, {
        // A frame announcing 1 MiB, then data that never ends (the stream is left open).
        onStream: (stream) => {
          const prefix = Buffer.from([0, 0, 0x10, 0, 0]);
          stream.write(prefix);
          for (let i = 0; i < 64; i++) stream.write(chunk);
        },
      }),
    );
    expect(reply.status).toMatchObject({ code: GRPC.RESOURCE_EXHAUSTED, reason: 'BODY_TOO_LARGE' });
    expect(agentCalls(since)).toEqual([]);
    await eventually(
      () => records.some((r) => r.error?.reason === 'BODY_TOO_LARGE' && r.bytesIn > 0),
      3000,
      'the record',
    );
    const record = records.filter((r) => r.error?.reason === 'BODY_TOO_LARGE').at(-1)!;
    expect(record.bytesIn).toBeLessThanOrEqual(MESSAGE_BYTES + 5);
  });

  it('a message within the cap goes through (the cap is not off by the prefix)', async () => {
    const reply = await withSession(portOf('reviewer'), (s) =>
      rawCall(s, `${SERVICE}SendMessage`, { body: sendMessageRequest('what is 6x7?') }),
    );
    expect(reply.status?.code).toBe(0);
    expect(reply.data.length).toBeGreaterThan(5);
  });

  it('advertises limits.grpc.concurrentStreams in SETTINGS and refuses the streams past it', async () => {
    const session = await h2(portOf('slow'));
    try {
      expect(session.remoteSettings.maxConcurrentStreams).toBe(STREAMS);
      // Open STREAMS calls the slow agent never answers, then one more.
      const held = Array.from({ length: STREAMS }, () =>
        rawCall(session, `${SERVICE}SendMessage`, { body: sendMessageRequest('hold'), ms: 8000 }),
      );
      await eventually(() => slow.streams.filter((s) => !s.closed).length >= STREAMS, 3000, 'the held streams');
      // The client honours the limit: the stream past it waits, and the agent never sees it.
      const extra = session.request({
        ':method': 'POST',
        ':path': `${SERVICE}SendMessage`,
        'content-type': 'application/grpc',
      });
      const refused = await new Promise<string>((resolve) => {
        const timer = setTimeout(() => resolve('pending'), 400);
        extra.on('error', (err: NodeJS.ErrnoException) => {
          clearTimeout(timer);
          resolve(err.code ?? 'error');
        });
        extra.on('response', () => {
          clearTimeout(timer);
          resolve('answered');
        });
      });
      expect(refused).not.toBe('answered');
      expect(slow.streams.filter((s) => !s.closed).length).toBe(STREAMS);
      session.destroy();
      await Promise.allSettled(held);
    } finally {
      session.destroy();
    }
  });

  it('a header list past limits.headerBytes is refused', async () => {
    const reply = await withSession(portOf('reviewer'), (s) =>
      rawCall(s, `${SERVICE}SendMessage`, { headers: { 'x-big': 'a'.repeat(8000) }, body: sendMessageRequest('hi?') }),
    );
    // Node's HTTP/2 (SETTINGS_MAX_HEADER_LIST_SIZE) refuses the stream before the gateway sees it.
    expect(reply.status).toBeUndefined();
    expect(reply.rstCode).toBe(constants.NGHTTP2_ENHANCE_YOUR_CALM);
  });

  it('more header pairs than limits.headerCount are refused', async () => {
    const many: Record<string, string> = {};
    for (let i = 0; i < 60; i++) many[`x-h${i}`] = 'v';
    const since = peer.requests.length;
    const reply = await withSession(portOf('reviewer'), (s) =>
      rawCall(s, `${SERVICE}SendMessage`, { headers: many, body: sendMessageRequest('hi?') }),
    );
    expect(reply.status).toBeUndefined();
    expect(reply.rstCode).toBe(constants.NGHTTP2_ENHANCE_YOUR_CALM);
    expect(agentCalls(since)).toEqual([]);
  });

  it('a non-POST or a non-gRPC content type gets an answer (INVALID_ARGUMENT), not a hang; the agent hears nothing', async () => {
    const since = peer.requests.length;
    await withSession(portOf('reviewer'), async (s) => {
      const get = await rawCall(s, `${SERVICE}GetTask`, { headers: { ':method': 'GET' }, ms: 3000 });
      expect(get.status).toMatchObject({ code: GRPC.INVALID_ARGUMENT, reason: 'REQUEST_INVALID' });
      const json = await rawCall(s, `${SERVICE}GetTask`, {
        headers: { 'content-type': 'application/json' },
        body: getTask('x'),
        ms: 3000,
      });
      expect(json.status).toMatchObject({ code: GRPC.INVALID_ARGUMENT, reason: 'REQUEST_INVALID' });
      // A body that never ends on such a call is answered all the same.
      const open = await rawCall(s, `${SERVICE}GetTask`, {
        headers: { 'content-type': 'text/plain' },
        onStream: (stream) => stream.write('not a gRPC message'),
        ms: 3000,
      });
      expect(open.status?.code).not.toBe(0);
    });
    expect(agentCalls(since)).toEqual([]);
  });

  it('an unknown :authority on the shared listener → NOT_FOUND, AGENT_NOT_FOUND; no agent contact', async () => {
    const since = peer.requests.length;
    const reply = await withSession(gw.grpcPorts.shared!, (s) =>
      rawCall(s, `${SERVICE}GetTask`, { headers: { ':authority': 'nobody.test' }, body: getTask('t-1') }),
    );
    expect(reply.status).toMatchObject({ code: GRPC.NOT_FOUND, reason: 'AGENT_NOT_FOUND', domain: 'a2a-gateway' });
    expect(peer.requests.length).toBe(since);
  });

  it('a known :authority on the shared listener reaches its agent', async () => {
    const reply = await withSession(gw.grpcPorts.shared!, (s) =>
      rawCall(s, `${SERVICE}GetTask`, { headers: { ':authority': 'reviewer.test' }, body: getTask('never-seen') }),
    );
    expect(reply.status?.code).toBe(GRPC.NOT_FOUND);
    expect(reply.status?.reason).not.toBe('AGENT_NOT_FOUND');
  });
});

describe('gRPC: deadlines, cancels and quiet bodies', () => {
  it('a grpc-timeout that passes → DEADLINE_EXCEEDED, and the agent stream is cancelled', async () => {
    const before = slow.streams.length;
    const reply = await withSession(portOf('slow'), (s) =>
      rawCall(s, `${SERVICE}SendMessage`, { headers: { 'grpc-timeout': '200m' }, body: sendMessageRequest('slow') }),
    );
    expect(reply.status?.code).toBe(GRPC.DEADLINE_EXCEEDED);
    const agentStream = slow.streams[before]!;
    expect(agentStream.headers['grpc-timeout']).toMatch(/^\d+m$/);
    await eventually(() => agentStream.closed, 3000, "the agent's stream closing");
    expect(agentStream.rstCode).toBe(8); // CANCEL
  });

  it("the real agent's slow task: DEADLINE_EXCEEDED within the client's deadline", async () => {
    const reply = await withSession(portOf('reviewer'), (s) =>
      rawCall(s, `${SERVICE}SendMessage`, {
        headers: { 'grpc-timeout': '150m' },
        body: sendMessageRequest('sleep:3000 slow work'),
      }),
    );
    expect(reply.status?.code).toBe(GRPC.DEADLINE_EXCEEDED);
  });

  it('a client that cancels mid-stream cancels the agent stream (outcome client-gone)', async () => {
    const before = slow.streams.length;
    const session = await h2(portOf('slow'));
    try {
      const stream = session.request(grpcHeaders(`${SERVICE}SendStreamingMessage`));
      stream.on('error', () => {});
      stream.end(frame(sendMessageRequest('stream and hold')));
      await eventually(() => slow.streams.length > before, 3000, 'the call reaching the agent');
      stream.close(8); // RST_STREAM CANCEL
      const agentStream = slow.streams[before]!;
      await eventually(() => agentStream.closed, 3000, "the agent's stream closing");
      expect(agentStream.rstCode).toBe(8);
      await eventually(
        () => records.some((r) => r.agent === 'slow' && r.outcome === 'client-gone'),
        3000,
        'the exchange record',
      );
      // Its reason is from the closed set, like every other (issue 30 item 6), not an Error's name.
      expect(records.find((r) => r.agent === 'slow' && r.outcome === 'client-gone')!.error?.reason).toBe('CLIENT_GONE');
    } finally {
      session.destroy();
    }
  });

  it('a body that goes quiet is answered within limits.bodyIdle; the agent hears nothing', async () => {
    const since = peer.requests.length;
    const reply = await withSession(portOf('reviewer'), (s) =>
      rawCall(s, `${SERVICE}SendMessage`, {
        ms: 3000,
        onStream: (stream) => stream.write(frame(sendMessageRequest('half')).subarray(0, 8)),
      }),
    );
    expect(reply.status?.code).toBe(GRPC.DEADLINE_EXCEEDED);
    expect(reply.status?.reason).toBe('REQUEST_TIMEOUT');
    expect(agentCalls(since)).toEqual([]);
  });

  it('an unreachable agent → UNAVAILABLE, UPSTREAM_UNREACHABLE', async () => {
    const reply = await withSession(portOf('dead'), (s) => rawCall(s, `${SERVICE}GetTask`, { body: getTask('t-1') }));
    expect(reply.status).toMatchObject({
      code: GRPC.UNAVAILABLE,
      reason: 'UPSTREAM_UNREACHABLE',
      domain: 'a2a-gateway',
    });
  });
});

describe('gRPC: an unreachable agent behind the timeout rescue', () => {
  it('a blocking SendMessage → UNAVAILABLE, UPSTREAM_UNREACHABLE', async () => {
    const reply = await withSession(portOf('deadRescued'), (s) =>
      rawCall(s, `${SERVICE}SendMessage`, { body: sendMessageRequest('process this') }),
    );
    expect(reply.status).toMatchObject({ code: GRPC.UNAVAILABLE, reason: 'UPSTREAM_UNREACHABLE' });
    expect(records.some((r) => r.agent === 'deadRescued' && r.rescue !== undefined)).toBe(true);
  });
});

describe('gRPC: connections', () => {
  it('limits.connectionsPerClient holds on the gRPC listener', async () => {
    const sessions: ClientHttp2Session[] = [];
    try {
      for (let i = 0; i < 4; i++) sessions.push(await h2(portOf('reviewer')));
      const fifth = await h2(portOf('reviewer')).then(
        async (s) => {
          sessions.push(s);
          const reply = await rawCall(s, `${SERVICE}GetTask`, { body: getTask('x'), ms: 2000 }).catch(() => undefined);
          return reply?.status?.code === GRPC.NOT_FOUND ? 'served' : 'refused';
        },
        () => 'refused',
      );
      expect(fifth).toBe('refused');
    } finally {
      for (const s of sessions) s.destroy();
    }
  });
});
