/**
 * HTTP/2 rapid reset (CVE-2023-44487, issue #29 item 4) on the gRPC listener, over real sockets
 * with Node's own http2 client: bursts of SendMessage calls, each HEADERS and its DATA and then
 * RST_STREAM(CANCEL) at once. A call whose stream is reset before the gateway opens the agent's
 * is never forwarded; a connection that resets more than `limits.grpc.prematureResets` streams
 * before their answer started gets GOAWAY (ENHANCE_YOUR_CALM); a client address past
 * `limits.grpc.prematureResetsPerClient` in 10 s has its connections closed and new ones refused.
 * A well-behaved client on another address is answered throughout. The reset caps at their
 * defaults (100, 200); today's build forwarded every call of the burst (500 of 500, 1,500 of 1,500).
 */
import { connect, constants, type ClientHttp2Session } from 'node:http2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPeerV1 } from '../peers/peer-v1.js';
import type { Peer } from '../peers/peer-common.js';
import { startTestGateway } from '../support/gateway.js';
import type { RunningGateway } from '../../src/gateway/gateway.js';
import { frame, grpcHeaders, rawCall, sendMessageRequest, SERVICE } from '../grpc/support/raw-grpc.js';
import { startFakeAgent, type FakeAgent } from '../grpc/support/fake-agent.js';
import { scriptedUpstream } from '../support/scripted-upstream.js';
import { openSocket } from '../support/raw-http.js';

const BURST = 500;
const PER_CONNECTION = 100; // limits.grpc.prematureResets' default
const PER_CLIENT = 200; // limits.grpc.prematureResetsPerClient's default
/**
 * limits.grpc.concurrentStreams: a call forwarded before its reset arrives is in flight, so a
 * connection gets at most the cap plus this many calls to the agent before its GOAWAY.
 */
const STREAMS = 10;

let peer: Peer;
let agent: FakeAgent;
let gw: RunningGateway;
/** An HTTP agent that counts the requests it gets. */
let httpAgent: Awaited<ReturnType<typeof scriptedUpstream>>;
let httpRequests = 0;

beforeAll(async () => {
  // The agent never answers: every call forwarded to it is still open when the client resets it.
  [peer, agent, httpAgent] = await Promise.all([
    startPeerV1({ grpc: true }),
    startFakeAgent(),
    scriptedUpstream((req, res) => {
      httpRequests++;
      req.resume();
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
    }),
  ]);
  gw = await startTestGateway(
    {
      target: { url: peer.url, grpc: { url: agent.url, listen: { port: 0 } } },
      reviewer: { url: peer.url, grpc: { listen: { port: 0 } } },
      plain: { url: httpAgent.url },
    },
    { listen: { host: '127.0.0.1', port: 0 }, limits: { grpc: { concurrentStreams: STREAMS } } },
  );
});
afterAll(async () => {
  await gw?.close();
  await Promise.all([peer?.close(), agent?.close(), httpAgent?.close()]);
});

const portOf = (name: string): number => gw.grpcPorts.agents.get(name)!;

/** An h2c connection from `from` (a loopback address of its own, so clients are told apart). */
function h2From(port: number, from: string): Promise<ClientHttp2Session> {
  return new Promise((resolve, reject) => {
    const session = connect(`http://127.0.0.1:${port}`, { localAddress: from } as never);
    session.once('remoteSettings', () => resolve(session));
    session.once('error', reject);
    session.once('close', () => reject(new Error('the connection was closed before its SETTINGS')));
  });
}

interface BurstResult {
  /** The connection got GOAWAY, and its code. */
  goaway: number | undefined;
}

/**
 * `count` SendMessage calls on `session`, each HEADERS + DATA then RST_STREAM(CANCEL) as soon as
 * its DATA is handed to the connection; resolves once every stream and the connection are closed.
 */
function resetBurst(session: ClientHttp2Session, count: number): Promise<BurstResult> {
  let goaway: number | undefined;
  session.on('goaway', (code) => (goaway ??= code));
  session.on('error', () => {}); // the GOAWAY's ENHANCE_YOUR_CALM
  const streams: Promise<void>[] = [];
  for (let i = 0; i < count && !session.destroyed && !session.closed; i++) {
    const stream = session.request(grpcHeaders(`${SERVICE}SendMessage`));
    stream.on('error', () => {});
    streams.push(new Promise<void>((resolve) => stream.once('close', () => resolve())));
    stream.end(frame(sendMessageRequest(`burst ${i}`)), () => {
      if (!stream.destroyed) stream.close(constants.NGHTTP2_CANCEL);
    });
  }
  return Promise.all(streams).then(async () => {
    // The connection is left open for the gateway to close; a deadline bounds the wait (a build
    // without the reset caps never closes it: Node's own limit is a burst of about 1,000).
    await new Promise<void>((resolve) => {
      if (session.destroyed) return resolve();
      const deadline = setTimeout(() => session.destroy(), 5000);
      session.once('close', () => {
        clearTimeout(deadline);
        resolve();
      });
    });
    return { goaway };
  });
}

/** A well-behaved call from 127.0.0.1 on a connection of its own: the SDK peer answers it. */
async function wellBehaved(): Promise<number | undefined> {
  const session = await h2From(portOf('reviewer'), '127.0.0.1');
  try {
    const reply = await rawCall(session, `${SERVICE}SendMessage`, { body: sendMessageRequest('hello') });
    return reply.status?.code;
  } finally {
    session.close();
  }
}

/** Streams the agent got since `since`, once no more are arriving. */
async function forwardedSince(since: number): Promise<number> {
  let seen = -1;
  while (seen !== agent.streams.length) {
    seen = agent.streams.length;
    await new Promise((r) => setTimeout(r, 100));
  }
  return agent.streams.length - since;
}

describe('HTTP/2 rapid reset on the gRPC listener', () => {
  it('one connection: reset calls are not forwarded past the cap, and the connection gets GOAWAY', async () => {
    const since = agent.streams.length;
    const session = await h2From(portOf('target'), '127.0.0.2');
    const { goaway } = await resetBurst(session, BURST);
    const forwarded = await forwardedSince(since);
    expect(forwarded).toBeLessThanOrEqual(PER_CONNECTION + STREAMS);
    expect(goaway).toBe(constants.NGHTTP2_ENHANCE_YOUR_CALM);
    expect(await wellBehaved()).toBe(0);
  });

  it('three connections from one address: the client is cut off past its budget across them', async () => {
    const since = agent.streams.length;
    const sessions = await Promise.all([1, 2, 3].map(() => h2From(portOf('target'), '127.0.0.3')));
    const results = await Promise.all(sessions.map((s) => resetBurst(s, BURST)));
    const forwarded = await forwardedSince(since);
    expect(forwarded).toBeLessThanOrEqual(PER_CLIENT + 3 * STREAMS);
    for (const r of results) expect(r.goaway).toBe(constants.NGHTTP2_ENHANCE_YOUR_CALM);
    // A new connection from that address is refused while its budget is spent.
    const refused = await h2From(portOf('target'), '127.0.0.3').then(
      (s) => (s.close(), false),
      () => true,
    );
    expect(refused).toBe(true);
    expect(await wellBehaved()).toBe(0);
  });

  it('HTTP/1.1: a client that closes before its body has arrived is not forwarded', async () => {
    const before = httpRequests;
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: {} });
    const closed = await Promise.all(
      Array.from({ length: 20 }, async () => {
        const socket = await openSocket(gw.url);
        socket.on('error', () => {});
        const gone = new Promise<void>((resolve) => socket.once('close', () => resolve()));
        socket.write(`POST /agents/plain/ HTTP/1.1\r\nhost: gw\r\ncontent-type: application/json\r\n`);
        socket.write(`content-length: ${body.length + 100}\r\n\r\n${body}`);
        socket.destroy();
        return gone;
      }),
    );
    expect(closed).toHaveLength(20);
    // A whole request after them is forwarded: the agent has then seen everything it will.
    const res = await fetch(`${gw.url}/agents/plain/`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(200);
    expect(httpRequests - before).toBe(1);
  });
});
