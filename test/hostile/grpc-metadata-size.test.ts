/**
 * `limits.headerBytes` on the gRPC listener (issue #29 item 6), over real sockets. The listener
 * advertises it as SETTINGS_MAX_HEADER_LIST_SIZE, but Node enforces that only once the client
 * has acknowledged the SETTINGS (RFC 9113 §6.5.3): a client that ignores them (Node's http2 client
 * behind test/support/h2-settings-ignorer.ts, which drops its SETTINGS ACK) had 70 KB of
 * metadata, sent as HEADERS + CONTINUATION, forwarded to the agent. Now the gateway measures the
 * header list as HTTP/2 does (RFC 9113 §6.5.2: name + value + 32 octets per field line,
 * pseudo-headers included) and refuses a list past the limit before anything is sent to the
 * agent: trailers-only, grpc-status RESOURCE_EXHAUSTED (8). A list of exactly the limit is
 * forwarded, so the refusal is the limit's and not of every large call.
 */
import {
  connect,
  constants,
  type ClientHttp2Session,
  type OutgoingHttpHeaders,
  type ServerHttp2Stream,
} from 'node:http2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPeerV1 } from '../peers/peer-v1.js';
import type { Peer } from '../peers/peer-common.js';
import { startTestGateway } from '../support/gateway.js';
import type { RunningGateway } from '../../src/gateway/gateway.js';
import { grpcHeaders, rawCall, sendMessageRequest, SERVICE, type RawGrpcReply } from '../grpc/support/raw-grpc.js';
import { startFakeAgent, type FakeAgent } from '../grpc/support/fake-agent.js';
import { settingsIgnorer, type SettingsIgnorer } from '../support/h2-settings-ignorer.js';

const HEADER_BYTES = 16 * 1024; // limits.headerBytes' default
const RESOURCE_EXHAUSTED = 8;
const CONTINUATION = 0x9;
const PATH = `${SERVICE}SendMessage`;

let peer: Peer;
let agent: FakeAgent;
let gw: RunningGateway;
let ignorer: SettingsIgnorer;

beforeAll(async () => {
  // The agent takes any header list (1 MiB), so whatever the gateway forwards reaches it and is
  // counted; it answers each call OK once the request message is in.
  const answer = (stream: ServerHttp2Stream) =>
    stream.once('end', () =>
      stream.respond({ ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '0' }, { endStream: true }),
    );
  [peer, agent] = await Promise.all([
    startPeerV1({ grpc: true }),
    startFakeAgent(answer, { maxHeaderListSize: 1 << 20 }),
  ]);
  gw = await startTestGateway({ target: { url: peer.url, grpc: { url: agent.url, listen: { port: 0 } } } });
  ignorer = await settingsIgnorer(gw.grpcPorts.agents.get('target')!);
});
afterAll(async () => {
  await ignorer?.close();
  await gw?.close();
  await Promise.all([peer?.close(), agent?.close()]);
});

/** An h2c session to `url`, its server's SETTINGS received; it may send header blocks up to 1 MiB. */
function session(url: string): Promise<ClientHttp2Session> {
  return new Promise((resolve, reject) => {
    // Node's client caps a header block it sends at 64 KiB by default (maxSendHeaderBlockLength).
    const s = connect(url, { maxSendHeaderBlockLength: 1 << 20 });
    s.once('remoteSettings', () => resolve(s));
    s.once('error', reject);
  });
}

/** The request headers of a SendMessage whose header list is `size` octets (RFC 9113 §6.5.2). */
function headersOfSize(size: number): OutgoingHttpHeaders {
  const base = grpcHeaders(PATH, { ':scheme': 'http', ':authority': 'gw.test', 'x-pad': '' });
  const listSize = Object.entries(base).reduce(
    (sum, [name, value]) => sum + name.length + String(value).length + 32,
    0,
  );
  return { ...base, 'x-pad': 'p'.repeat(size - listSize) };
}

/** One SendMessage through the SETTINGS-ignoring client with a header list of `size` octets. */
async function callOfSize(size: number): Promise<RawGrpcReply> {
  const s = await session(ignorer.url);
  try {
    return await rawCall(s, PATH, { headers: headersOfSize(size), body: sendMessageRequest('hello') });
  } finally {
    s.close();
  }
}

function expectRefused(reply: RawGrpcReply): void {
  // Trailers-only: the status is in the one HEADERS frame of the answer (gRPC over HTTP/2).
  expect(reply.headers['grpc-status']).toBe(String(RESOURCE_EXHAUSTED));
  expect(reply.status?.code).toBe(RESOURCE_EXHAUSTED);
  expect(reply.status?.message).toContain(`limits.headerBytes (${HEADER_BYTES} bytes)`);
  expect(reply.data.length).toBe(0);
}

describe('gRPC metadata past limits.headerBytes', () => {
  it('70 KB of metadata over HEADERS + CONTINUATION, SETTINGS ignored: RESOURCE_EXHAUSTED, never forwarded', async () => {
    const before = agent.streams.length;
    const frames = ignorer.clientFrames.length;
    const reply = await callOfSize(70 * 1024);
    expectRefused(reply);
    expect(ignorer.clientFrames.slice(frames)).toContain(CONTINUATION);
    expect(agent.streams.length - before).toBe(0);
  });

  it('a header list of exactly the limit is forwarded; one octet more is refused and not forwarded', async () => {
    const before = agent.streams.length;
    const at = await callOfSize(HEADER_BYTES);
    expect(at.status?.code).toBe(0);
    expect(agent.streams.length - before).toBe(1);
    expect(String(agent.streams.at(-1)!.headers['x-pad']).length).toBe(
      headersOfSize(HEADER_BYTES)['x-pad']!.toString().length,
    );

    const over = await callOfSize(HEADER_BYTES + 1);
    expectRefused(over);
    expect(agent.streams.length - before).toBe(1);
  });

  it('the refusals are counted in a2a_rejections_total as HEADERS_TOO_LARGE', async () => {
    const metrics = await (await fetch(`${gw.adminUrl}/metrics`)).text();
    expect(metrics).toMatch(/a2a_rejections_total\{agent="target",reason="HEADERS_TOO_LARGE"\} 2/);
  });

  it('a client that honours SETTINGS: Node resets the stream (ENHANCE_YOUR_CALM), nothing is forwarded', async () => {
    const before = agent.streams.length;
    const s = await session(`http://127.0.0.1:${gw.grpcPorts.agents.get('target')!}`);
    try {
      const reply = await rawCall(s, PATH, { headers: headersOfSize(70 * 1024), body: sendMessageRequest('hello') });
      expect(reply.rstCode).toBe(constants.NGHTTP2_ENHANCE_YOUR_CALM);
    } finally {
      s.close();
    }
    expect(agent.streams.length - before).toBe(0);
  });
});
