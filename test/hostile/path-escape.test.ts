/**
 * A path must not leave the agent's base path carrying the gateway's credentials: an agent whose
 * server resolves `..` or decodes `%2e` (nginx does both) would otherwise serve `/admin/users` to
 * anyone. Raw sockets, so no client library tidies the target first.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest, type RawAnswer } from '../support/raw-http.js';
import { scriptedUpstream } from '../support/scripted-upstream.js';
import { startTestGateway } from '../support/gateway.js';
import type { RunningGateway } from '../../src/gateway/gateway.js';

const seen: { url: string; authorization?: string }[] = [];
let upstream: Awaited<ReturnType<typeof scriptedUpstream>>;
let gateway: RunningGateway;

beforeAll(async () => {
  upstream = await scriptedUpstream((req, res) => {
    // The gateway's own card fetches are not what these tests send.
    if (!req.url!.includes('/.well-known/')) seen.push({ url: req.url!, authorization: req.headers.authorization });
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  gateway = await startTestGateway({
    billing: { url: `${upstream.url}/billing`, headers: { Authorization: 'Bearer SVC' } },
  });
});
afterAll(async () => {
  await gateway.close();
  await upstream.close();
});

/** A GET, or a POST of `body`, to `target` exactly as written. */
function raw(target: string, body = ''): Promise<RawAnswer> {
  const method = body ? 'POST' : 'GET';
  const length = body ? `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` : '';
  return rawRequest(
    gateway.url,
    `${method} ${target} HTTP/1.1\r\nhost: gw\r\nconnection: close\r\n${length}\r\n${body}`,
  );
}

describe('a target that would leave the agent', () => {
  it.each([
    '/agents/billing/../admin/users',
    '/agents/billing/%2e%2e/admin/users',
    '/agents/billing/.%2e/admin/users',
    '/agents/billing/%2E./admin/users',
    '/agents/billing/..%2fadmin/users',
    '/agents/billing/a/../../admin/users',
    '/agents/billing/..\\admin/users',
    '/agents/billing/%5c..%5cadmin',
    '/agents/billing/a%00b',
  ])('%s is refused with 400 and never reaches the agent', async (target) => {
    const before = seen.length;
    const res = await raw(target);
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toMatchObject({
      error: { code: 400, status: 'INVALID_ARGUMENT', details: [{ reason: 'REQUEST_INVALID', domain: 'a2a-gateway' }] },
    });
    expect(seen.length).toBe(before);
  });

  it('is refused in the caller protocol: a JSON-RPC envelope with the id', async () => {
    const res = await raw(
      '/agents/billing/../admin',
      JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'GetTask', params: {} }),
    );
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32000 } });
  });

  it('dot-segments inside the agent are resolved before forwarding', async () => {
    const res = await raw('/agents/billing/a/./b/../c?x=1');
    expect(res.status).toBe(200);
    expect(seen.at(-1)).toEqual({ url: '/billing/a/c?x=1', authorization: 'Bearer SVC' });
  });
});
