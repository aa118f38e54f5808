/**
 * One credential per call (issue #29 item 3). A call that carries two — `X-API-Key` and
 * `Authorization`, or either header twice — was judged by one of them while an agent with
 * `auth.forward: true` got both and could act on the one the gateway never checked. Now such a
 * call is refused with 401 `UNAUTHENTICATED` (reason `ambiguous-credentials` in the message, the
 * access log and `a2a_auth_denied_total`), in the caller's protocol, and the agent hears
 * nothing; a call with one credential forwards exactly that one. Raw sockets for HTTP/1.1 (no
 * client library merges the repeated headers), raw HTTP/2 for gRPC, a recording agent for what
 * got through.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest, type RawAnswer } from '../support/raw-http.js';
import { scriptedUpstream } from '../support/scripted-upstream.js';
import { startTestGateway } from '../support/gateway.js';
import { startPeerV1 } from '../peers/peer-v1.js';
import type { Peer } from '../peers/peer-common.js';
import { h2, rawCall, sendMessageRequest, SERVICE, type RawGrpcReply } from '../grpc/support/raw-grpc.js';
import type { RunningGateway } from '../../src/gateway/gateway.js';

const ALICE = 'alice-key-0123456789abcdef';
const BOB = 'bob-key-0123456789abcdef';
const UNAUTHENTICATED = 16;

/** What reached the recording agent: each request's raw header list (card fetches left out). */
const received: string[][] = [];
let upstream: Awaited<ReturnType<typeof scriptedUpstream>>;
let peer: Peer;
let gateway: RunningGateway;

beforeAll(async () => {
  upstream = await scriptedUpstream((req, res) => {
    if (!req.url!.includes('/.well-known/')) received.push(req.rawHeaders);
    req.resume();
    req.on('end', () =>
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","id":7,"result":{}}'),
    );
  });
  peer = await startPeerV1({ stepMs: 20, grpc: true });
  gateway = await startTestGateway(
    {
      fwd: { url: upstream.url, auth: { forward: true } },
      kept: { url: upstream.url },
      grpcfwd: { url: peer.url, auth: { forward: true }, grpc: { listen: { port: 0 } } },
    },
    { auth: { apiKeys: { alice: { key: ALICE }, bob: { key: BOB } } } },
  );
});
afterAll(async () => {
  await gateway?.close();
  await Promise.all([upstream?.close(), peer?.close()]);
});

const JSONRPC_BODY = JSON.stringify({
  jsonrpc: '2.0',
  id: 7,
  method: 'SendMessage',
  params: { message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'hi' }] } },
});
const REST_BODY = JSON.stringify({ message: { messageId: 'm-2', role: 'ROLE_USER', parts: [{ text: 'hi' }] } });

/** POST `path` with `lines` (each `Name: value`) in the head, exactly as written. */
function post(path: string, lines: readonly string[], body = JSONRPC_BODY): Promise<RawAnswer> {
  const head = [
    `POST ${path} HTTP/1.1`,
    'host: gw',
    'content-type: application/json',
    'a2a-version: 1.0',
    `content-length: ${Buffer.byteLength(body)}`,
    'connection: close',
    ...lines,
  ];
  return rawRequest(gateway.url, `${head.join('\r\n')}\r\n\r\n${body}`);
}

/** The credential headers (names lower-cased, with their values) of a raw header list. */
const credentialsIn = (raw: readonly string[]): string[] => {
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (name === 'authorization' || name === 'x-api-key') out.push(`${name}: ${raw[i + 1]}`);
  }
  return out;
};

const TWO = [
  ['a valid X-API-Key and Authorization: Bearer garbage', [`X-API-Key: ${ALICE}`, 'Authorization: Bearer garbage']],
  ['a wrong X-API-Key and a valid Bearer', ['X-API-Key: wrong-key', `Authorization: Bearer ${ALICE}`]],
  ['two Authorization headers, the first valid', [`Authorization: Bearer ${ALICE}`, 'Authorization: Bearer other']],
  ['two Authorization headers, both valid', [`Authorization: Bearer ${ALICE}`, `Authorization: Bearer ${BOB}`]],
  ['two X-API-Key headers, both valid', [`X-API-Key: ${ALICE}`, `x-api-key: ${BOB}`]],
  ['a valid X-API-Key and Authorization: Basic', [`X-API-Key: ${ALICE}`, 'Authorization: Basic dXNlcjpwYXNz']],
] as const;

describe('two credentials on one HTTP call', () => {
  it.each(TWO)('%s → 401 ambiguous-credentials (JSON-RPC, with the id); the agent hears nothing', async (_, lines) => {
    const before = received.length;
    const res = await post('/agents/fwd/a2a/jsonrpc', lines);
    expect(res.status, res.body).toBe(401);
    expect(res.head.toLowerCase()).toContain('www-authenticate: bearer realm="a2a-gateway", error="invalid_request"');
    const body = JSON.parse(res.body) as Record<string, unknown>;
    expect(body).toMatchObject({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32000, data: [{ reason: 'UNAUTHENTICATED', domain: 'a2a-gateway' }] },
    });
    expect((body['error'] as { message: string }).message).toContain('ambiguous-credentials');
    expect(res.body).not.toContain(ALICE);
    expect(received.length).toBe(before);
  });

  it('over HTTP+JSON → the REST error, 401 UNAUTHENTICATED; the agent hears nothing', async () => {
    const before = received.length;
    const res = await post('/agents/fwd/message:send', [`X-API-Key: ${ALICE}`, 'Authorization: Bearer x'], REST_BODY);
    expect(res.status).toBe(401);
    const body = JSON.parse(res.body) as { error: { code: number; status: string; message: string } };
    expect(body.error).toMatchObject({ code: 401, status: 'UNAUTHENTICATED' });
    expect(body.error.message).toContain('ambiguous-credentials');
    expect(received.length).toBe(before);
  });

  it('is counted under reason="ambiguous-credentials"', async () => {
    const metric = async () => {
      const text = await (await fetch(gateway.metricsUrl!)).text();
      const line = text
        .split('\n')
        .find((l) => l.startsWith('a2a_auth_denied_total{agent="kept",reason="ambiguous-credentials"}'));
      return Number(line?.split(' ').at(-1));
    };
    const before = await metric();
    expect(before).toBeGreaterThanOrEqual(0);
    expect(
      (await post('/agents/kept/a2a/jsonrpc', [`X-API-Key: ${ALICE}`, `Authorization: Bearer ${ALICE}`])).status,
    ).toBe(401);
    expect(await metric()).toBe(before + 1);
  });

  it('the public catalog lists nothing to a caller with two credentials', async () => {
    const one = await rawRequest(
      gateway.url,
      `GET /agents HTTP/1.1\r\nhost: gw\r\nX-API-Key: ${ALICE}\r\nconnection: close\r\n\r\n`,
    );
    expect((JSON.parse(one.body) as { agents: unknown[] }).agents.length).toBe(3);
    const two = await rawRequest(
      gateway.url,
      `GET /agents HTTP/1.1\r\nhost: gw\r\nX-API-Key: ${ALICE}\r\nAuthorization: Bearer garbage\r\nconnection: close\r\n\r\n`,
    );
    expect(JSON.parse(two.body)).toEqual({ agents: [] });
  });
});

describe('one credential', () => {
  it.each([
    ['Authorization', `Authorization: Bearer ${ALICE}`, `authorization: Bearer ${ALICE}`],
    ['X-API-Key', `X-API-Key: ${ALICE}`, `x-api-key: ${ALICE}`],
  ])('%s: with auth.forward the agent gets that one header, as sent; without, none', async (_, line, seen) => {
    let before = received.length;
    expect((await post('/agents/fwd/a2a/jsonrpc', [line])).status).toBe(200);
    expect(received.length).toBe(before + 1);
    expect(credentialsIn(received.at(-1)!)).toEqual([seen]);

    before = received.length;
    expect((await post('/agents/kept/a2a/jsonrpc', [line])).status).toBe(200);
    expect(received.length).toBe(before + 1);
    expect(credentialsIn(received.at(-1)!)).toEqual([]);
  });
});

describe('two credentials on one gRPC call', () => {
  const grpcCall = async (headers: Record<string, string | string[]>): Promise<RawGrpcReply> => {
    const session = await h2(gateway.grpcPorts.agents.get('grpcfwd')!);
    try {
      return await rawCall(session, `${SERVICE}SendMessage`, { headers, body: sendMessageRequest('hello?') });
    } finally {
      session.destroy();
    }
  };
  const agentCalls = (since: number) => peer.requests.slice(since).filter((r) => r.path.startsWith(SERVICE));

  it.each([
    ['x-api-key and authorization', { 'x-api-key': ALICE, authorization: 'Bearer garbage' }],
    ['x-api-key twice', { 'x-api-key': [ALICE, BOB] }],
  ])('%s → UNAUTHENTICATED; the agent hears nothing', async (_, headers) => {
    const since = peer.requests.length;
    const reply = await grpcCall(headers);
    expect(reply.status?.code).toBe(UNAUTHENTICATED);
    expect(reply.status?.message).toContain('ambiguous-credentials');
    expect(agentCalls(since)).toEqual([]);
  });

  it('one credential passes and is forwarded alone', async () => {
    const since = peer.requests.length;
    const reply = await grpcCall({ 'x-api-key': ALICE });
    expect(reply.status?.code).toBe(0);
    const calls = agentCalls(since);
    expect(calls.length).toBe(1);
    expect(calls[0]!.headers['x-api-key']).toBe(ALICE);
    expect(calls[0]!.headers.authorization).toBeUndefined();
  });
});
