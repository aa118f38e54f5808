/**
 * `application/a2a+json` (spec §11.1, §14.1; wire-reference §7.1 #13) through the gateway, over
 * real sockets with the SDK 1.3.0 agent (0.3 compat on): a request in that media type is
 * classified and forwarded like any JSON request on every JSON binding — what the agent makes of
 * it is its own answer, passed on untouched (the SDK's JSON-RPC endpoint refuses it, capture
 * `v1--edge-rpc-a2a-json-content-type.http`) — and whatever the gateway answers itself (its
 * errors, the timeout rescue's answer) comes in the media type the caller used.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPeerV1 } from '../peers/peer-v1.js';
import type { Peer } from '../peers/peer-common.js';
import { within } from '../peers/deadline.js';
import { waitReady } from '../state/support/replicas.js';
import { startTestGateway } from '../support/gateway.js';
import type { RunningGateway } from '../../src/gateway/gateway.js';
import type { ExchangeRecord } from '../../src/exchange/record.js';

const A2A_JSON = 'application/a2a+json';
const JSON_TYPE = 'application/json';

let peer: Peer;
let gw: RunningGateway;

beforeAll(async () => {
  peer = await startPeerV1({ compatV03: true, stepMs: 30 });
  gw = await startTestGateway({
    plain: { url: peer.url },
    small: { url: peer.url, limits: { bodyBytes: 64 } },
    rescued: { url: peer.url, timeoutRescue: { enabled: true, clientTimeout: '20s', strategy: 'stream' } },
  });
  await waitReady(gw);
});
afterAll(async () => {
  await gw?.close();
  await peer?.close();
});

const message1 = (text: string) => ({ messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }] });
const message03 = (text: string) => ({ messageId: randomUUID(), role: 'ROLE_USER', content: [{ text }] });

async function post(agent: string, path: string, body: unknown, type: string, version?: string, accept?: string) {
  const headers: Record<string, string> = {
    'content-type': type,
    ...(version ? { 'a2a-version': version } : {}),
    ...(accept ? { accept } : {}),
  };
  const res = await fetch(`${gw.url}/agents/${agent}${path}`, {
    method: 'POST',
    headers,
    body: JSON.stringify(body),
    ...within(10_000),
  });
  return { status: res.status, type: res.headers.get('content-type'), body: (await res.json()) as Record<string, any> };
}

async function lastRecord(agent: string): Promise<ExchangeRecord> {
  const res = await fetch(`${gw.adminUrl}/exchanges?agent=${agent}&limit=1`, within(3000));
  return ((await res.json()) as { exchanges: ExchangeRecord[] }).exchanges[0]!;
}

const rpc = (method: string, params: unknown) => ({ jsonrpc: '2.0', id: 'r1', method, params });

describe('a request in application/a2a+json is classified and forwarded as any JSON request', () => {
  it('REST 1.0: the agent gets it as sent, the answer is decoded, no finding', async () => {
    const got = await post('plain', '/a2a/rest/message:send', { message: message1('hi?') }, A2A_JSON, '1.0');
    expect(got.status).toBe(200);
    expect(got.body.message.parts[0].text).toMatch(/You asked: hi\?/);
    expect(peer.requests.at(-1)!.headers['content-type']).toBe(A2A_JSON);
    const record = await lastRecord('plain');
    expect([record.a2a?.operation, record.a2a?.kind, record.findings]).toEqual(['SendMessage', 'message', []]);
  });

  it("JSON-RPC 1.0: the SDK agent's refusal (-32005) is passed on untouched and decoded as its error", async () => {
    const got = await post('plain', '/a2a/jsonrpc', rpc('GetTask', { id: 'x' }), A2A_JSON, '1.0');
    expect([got.status, got.type, got.body.error.code]).toEqual([200, 'application/json; charset=utf-8', -32005]);
    const record = await lastRecord('plain');
    expect([record.a2a?.operation, record.a2a?.kind, record.a2a?.error?.code]).toEqual(['GetTask', 'error', -32005]);
  });
});

describe("the gateway's own answers come in the caller's media type", () => {
  const big = 'x'.repeat(200);
  it.each([
    ['JSON-RPC 1.0', '/a2a/jsonrpc', rpc('SendMessage', { message: message1(big) }), '1.0'],
    ['JSON-RPC 0.3', '/a2a/jsonrpc', rpc('message/send', { message: message03(big) }), undefined],
    ['REST 0.3', '/a2a/rest/v1/message:send', { message: message03(big) }, undefined],
  ] as const)(
    '%s: a refusal (BODY_TOO_LARGE) in application/a2a+json, or application/json',
    async (_, path, body, v) => {
      const a2a = await post('small', path, body, A2A_JSON, v);
      const json = await post('small', path, body, JSON_TYPE, v);
      expect([a2a.status, a2a.type]).toEqual([413, A2A_JSON]);
      expect([json.status, json.type]).toEqual([413, JSON_TYPE]);
      const reason = (b: Record<string, any>) => (b.error.data ?? b.error.details)[0].reason;
      expect([reason(a2a.body), reason(json.body)]).toEqual(['BODY_TOO_LARGE', 'BODY_TOO_LARGE']);
    },
  );

  it('REST 1.0: application/a2a+json whatever the request said (§11.1 SHOULD, as the agent answers)', async () => {
    const got = await post('small', '/a2a/rest/message:send', { message: message1(big) }, JSON_TYPE, '1.0');
    expect([got.status, got.type]).toEqual([413, A2A_JSON]);
  });

  it('Accept decides when it puts a JSON type first (the SDK 1.3.0 REST client: a2a+json, json)', async () => {
    const body = rpc('SendMessage', { message: message1(big) });
    const a2a = await post('small', '/a2a/jsonrpc', body, JSON_TYPE, '1.0', `${A2A_JSON}, ${JSON_TYPE}`);
    const json = await post('small', '/a2a/jsonrpc', body, A2A_JSON, '1.0', JSON_TYPE);
    const neither = await post('small', '/a2a/jsonrpc', body, A2A_JSON, '1.0', '*/*');
    expect([a2a.type, json.type, neither.type]).toEqual([A2A_JSON, JSON_TYPE, A2A_JSON]);
  });

  // The envelope the rescue writes itself (strategy stream: no reply of the agent's to reuse; a
  // reused reply keeps the agent's own headers). The SDK's 0.3 REST routes read only
  // application/json bodies, so the caller asks for a2a+json by Accept.
  it('REST 0.3 timeout rescue: the rescued task in application/a2a+json, or application/json', async () => {
    const send = () => ({ message: message03('process this'), configuration: { blocking: true } });
    for (const type of [A2A_JSON, JSON_TYPE]) {
      const got = await post('rescued', '/a2a/rest/v1/message:send', send(), JSON_TYPE, undefined, type);
      expect([got.status, got.type]).toEqual([200, type]);
      expect(got.body.status?.state ?? got.body.task?.status?.state).toBe('TASK_STATE_COMPLETED');
      const record = await lastRecord('rescued');
      expect([record.rescue?.strategy, record.rescue?.outcome]).toEqual(['stream', 'settled']);
    }
  });

  it("JSON-RPC 1.0 timeout rescue: the send goes to the agent in the caller's media type, so its refusal is the same", async () => {
    const got = await post(
      'rescued',
      '/a2a/jsonrpc',
      rpc('SendMessage', { message: message1('process this') }),
      A2A_JSON,
      '1.0',
    );
    expect([got.status, got.body.error?.code]).toEqual([200, -32005]);
    expect(peer.requests.at(-1)!.headers['content-type']).toBe(A2A_JSON);
    expect((await lastRecord('rescued')).rescue?.outcome).toBe('error');
  });
});
