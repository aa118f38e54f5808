/**
 * The extended-card rewrite changes URLs only (issue #12 item 7). An agent answers
 * GetExtendedAgentCard (JSON-RPC) and /extendedAgentCard (REST) with bodies a JSON round trip
 * would damage — a big integer, `1e400`, duplicate keys, a Task instead of a card, 100k-deep
 * nesting — and the client gets the agent's bytes with only the interface URLs changed (or, for
 * what is no card, the agent's bytes and headers as they were, and a finding on the exchange).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { createHash } from 'node:crypto';
import { scriptedUpstream } from '../support/scripted-upstream.js';
import { startTestGateway } from '../support/gateway.js';
import type { RunningGateway } from '../../src/gateway/gateway.js';
import type { ExchangeObserver } from '../../src/exchange/exchange.js';
import type { Finding } from '../../src/a2a/findings.js';

let agent: { url: string; close: () => Promise<void> };
let gateway: RunningGateway;
/** The body the agent answers the next extended-card request with. */
let answer = '';
const finished: { path: string; findings: Finding[] }[] = [];
const recorder: ExchangeObserver = {
  name: 'test-recorder',
  onFinish: (exchange) => void finished.push({ path: exchange.record.path, findings: [...exchange.record.findings] }),
};

beforeAll(async () => {
  agent = await scriptedUpstream((req, res) => {
    if (req.url?.includes('/.well-known/')) return void res.writeHead(404).end();
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json', etag: '"agent"' }).end(answer));
  });
  gateway = await startTestGateway({ a: { url: agent.url } }, {}, [recorder]);
});
afterAll(async () => {
  await gateway.close();
  await agent.close();
});

const agentUrl = () => agent.url;
const publicUrl = () => `${gateway.url}/agents/a`;

async function extendedCard(binding: 'jsonrpc' | 'rest', body: string) {
  answer = body;
  finished.length = 0;
  const res =
    binding === 'jsonrpc'
      ? await request(`${gateway.url}/agents/a/`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetExtendedAgentCard' }),
        })
      : await request(`${gateway.url}/agents/a/extendedAgentCard`, { headers: { 'a2a-version': '1.0' } });
  const text = await res.body.text();
  await until(() => finished.length > 0);
  return { status: res.statusCode, headers: res.headers, text, findings: finished[0]!.findings };
}

async function until(ok: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !ok(); i++) await new Promise((r) => setTimeout(r, 5));
  if (!ok()) throw new Error('the exchange did not finish');
}

const card = (extra: string) =>
  `{"name":"ext",${extra},"supportedInterfaces":[{"url":"${agentUrl()}/rpc","protocolBinding":"JSONRPC"}]}`;
const rewritten = (extra: string) =>
  `{"name":"ext",${extra},"supportedInterfaces":[{"url":"${publicUrl()}/rpc","protocolBinding":"JSONRPC"}]}`;
const envelope = (result: string) => `{"jsonrpc":"2.0","id":1,"result":${result}}`;
const etagOf = (text: string) => `"${createHash('sha256').update(text).digest('base64url').slice(0, 27)}"`;

describe('the extended card keeps every byte but its URLs', () => {
  it.each([
    ['a big integer', '"n":12345678901234567890'],
    ['1e400', '"big":1e400,"small":-1E-400'],
    ['duplicate keys', '"name":"second","x":1,"x":[true]'],
    ['escapes, non-ASCII and odd whitespace', '"d" :\t"\\u00e9t\\u00e9 \\/ 日本" ,\n "e":{ }'],
  ])('JSON-RPC, %s', async (_what, extra) => {
    const res = await extendedCard('jsonrpc', envelope(card(extra)));
    expect(res.status).toBe(200);
    expect(res.text).toBe(envelope(rewritten(extra)));
    expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(res.text));
    expect(res.headers['etag']).not.toBe('"agent"');
    expect(res.findings.map((f) => f.rule)).not.toContain('a2a.extended-card-not-a-card');
  });

  it('REST, a big integer and 1e400', async () => {
    const extra = '"n":12345678901234567890,"m":1e400';
    const res = await extendedCard('rest', card(extra));
    expect(res.status).toBe(200);
    expect(res.text).toBe(rewritten(extra));
  });

  it('drops the signatures member and nothing else', async () => {
    const res = await extendedCard('jsonrpc', envelope(card('"signatures":[{"protected":"x","signature":"y"}]')));
    expect(res.text).toBe(
      envelope(`{"name":"ext","supportedInterfaces":[{"url":"${publicUrl()}/rpc","protocolBinding":"JSONRPC"}]}`),
    );
  });

  it('a card with a 100k-deep member is rewritten, not a 502', async () => {
    const deep = `"deep":${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const res = await extendedCard('jsonrpc', envelope(card(deep)));
    expect(res.status).toBe(200);
    expect(res.text).toBe(envelope(rewritten(deep)));
  });
});

describe('an answer that is no card passes unchanged, with a finding', () => {
  const notACard = { rule: 'a2a.extended-card-not-a-card', count: 1, detail: expect.any(String) };

  it.each([
    [
      'a Task',
      envelope('{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_COMPLETED"},"n":12345678901234567890}'),
    ],
    ['a 100k-deep result', envelope(`${'['.repeat(100_000)}${']'.repeat(100_000)}`)],
    ['invalid JSON', `{"jsonrpc":"2.0","id":1,"result":{"url":"http://127.0.0.1:1/x",}}`],
  ])('JSON-RPC, %s', async (_what, body) => {
    const res = await extendedCard('jsonrpc', body);
    expect(res.status).toBe(200);
    expect(res.text).toBe(body);
    expect(res.headers['etag']).toBe('"agent"');
    expect(res.findings).toContainEqual(notACard);
  });

  it('REST, a card without interfaces', async () => {
    const body = '{"name":"ext","n":12345678901234567890}';
    const res = await extendedCard('rest', body);
    expect(res.text).toBe(body);
    expect(res.findings).toContainEqual(notACard);
  });

  it('a JSON-RPC error passes unchanged without a finding', async () => {
    const body = '{"jsonrpc":"2.0","id":1,"error":{"code":-32007,"message":"Extended card not configured"}}';
    const res = await extendedCard('jsonrpc', body);
    expect(res.text).toBe(body);
    expect(res.findings.map((f) => f.rule)).not.toContain('a2a.extended-card-not-a-card');
  });

  it('a body over the 1 MiB cap passes unchanged', async () => {
    const body = envelope(card(`"pad":"${'x'.repeat(1 << 20)}"`));
    const res = await extendedCard('jsonrpc', body);
    expect(res.text).toBe(body);
    expect(res.headers['etag']).toBe('"agent"');
  });
});

it('recomputes the ETag from the bytes sent', async () => {
  const res = await extendedCard('rest', card('"n":1'));
  expect(res.headers['etag']).toBe(etagOf(res.text));
});
