/**
 * Agent cards reach clients with every interface URL pointing back through the gateway
 * (wire-reference §3, §6.5), for 1.0, 0.3 and hybrid cards, the extended card, and agents
 * mounted under a path prefix; the public URL comes from config, trusted X-Forwarded-*, or Host.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { startPeerV1 } from '../peers/peer-v1.js';
import { startPeerV03 } from '../peers/peer-v03.js';
import type { Peer } from '../peers/peer-common.js';
import { startTestGateway } from '../support/gateway.js';
import type { RunningGateway } from '../../src/gateway/gateway.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function setup(
  peer: Peer,
  extra: Record<string, unknown> = {},
  agentExtra: Record<string, unknown> = {},
): Promise<RunningGateway> {
  cleanups.push(() => peer.close());
  const gateway = await startTestGateway({ agent: { url: peer.url, ...agentExtra } }, extra);
  cleanups.push(() => gateway.close());
  return gateway;
}

async function getCard(
  gateway: RunningGateway,
  headers: Record<string, string> = {},
  path = '/.well-known/agent-card.json',
) {
  const res = await request(`${gateway.url}/agents/agent${path}`, { headers });
  const text = await res.body.text();
  return { res, text, card: res.statusCode === 200 ? (JSON.parse(text) as Record<string, any>) : undefined };
}

describe('1.0 card', () => {
  it('rewrites supportedInterfaces to the gateway and recomputes the ETag', async () => {
    const peer = await startPeerV1();
    const gateway = await setup(peer);
    const direct = await request(`${peer.url}/.well-known/agent-card.json`, { headers: { 'a2a-version': '1.0' } });
    const directCard = (await direct.body.json()) as Record<string, any>;
    const { res, card, text } = await getCard(gateway, { 'a2a-version': '1.0' });
    expect(res.statusCode).toBe(200);
    expect(card!.supportedInterfaces.map((i: { url: string }) => i.url)).toEqual([
      `${gateway.url}/agents/agent/a2a/jsonrpc`,
      `${gateway.url}/agents/agent/a2a/rest`,
    ]);
    // Only the URLs change.
    expect({ ...card, supportedInterfaces: undefined, signatures: undefined }).toEqual({
      ...directCard,
      supportedInterfaces: undefined,
      signatures: undefined,
    });
    expect(res.headers['etag']).toBeDefined();
    expect(res.headers['etag']).not.toBe(direct.headers['etag']);
    expect(res.headers['cache-control']).toBe(direct.headers['cache-control']);
    expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(text));
  });

  it('answers If-None-Match with 304 and a changed ETag with 200', async () => {
    const gateway = await setup(await startPeerV1());
    const first = await getCard(gateway, { 'a2a-version': '1.0' });
    const etag = String(first.res.headers['etag']);
    const again = await request(`${gateway.url}/agents/agent/.well-known/agent-card.json`, {
      headers: { 'a2a-version': '1.0', 'if-none-match': etag },
    });
    await again.body.dump();
    expect(again.statusCode).toBe(304);
    expect(again.headers['etag']).toBe(etag);
    const stale = await getCard(gateway, { 'a2a-version': '1.0', 'if-none-match': '"something-else"' });
    expect(stale.res.statusCode).toBe(200);
  });

  it('serves the legacy /.well-known/agent.json path too', async () => {
    const peer = await startPeerV1();
    const gateway = await setup(peer, {}, { cardPath: '/.well-known/agent-card.json' });
    const { res } = await getCard(gateway, { 'a2a-version': '1.0' }, '/.well-known/agent.json');
    // The peer serves only agent-card.json; the gateway asked the agent for the path the client named.
    expect([200, 404]).toContain(res.statusCode);
    expect(peer.requests.some((r) => r.path === '/.well-known/agent.json')).toBe(true);
  });

  it('maps both well-known paths to a configured cardPath', async () => {
    const peer = await startPeerV1();
    const gateway = await setup(peer, {}, { cardPath: '/.well-known/agent-card.json?x=1' });
    const { res, card } = await getCard(gateway, { 'a2a-version': '1.0' }, '/.well-known/agent.json');
    expect(res.statusCode).toBe(200);
    expect(card!.supportedInterfaces[0].url).toBe(`${gateway.url}/agents/agent/a2a/jsonrpc`);
  });
});

describe('0.3 and hybrid cards', () => {
  it('rewrites url, additionalInterfaces and supportedInterfaces of the a2a-js hybrid card, keeping Vary', async () => {
    const gateway = await setup(await startPeerV1({ compatV03: true }));
    const { res, card } = await getCard(gateway); // a 0.3 client sends no A2A-Version
    expect(res.headers['vary']).toMatch(/A2A-Version/i);
    expect(card!.url).toBe(`${gateway.url}/agents/agent/a2a/jsonrpc`);
    expect(
      card!.additionalInterfaces.every((i: { url: string }) => i.url.startsWith(`${gateway.url}/agents/agent/`)),
    ).toBe(true);
    expect(
      card!.supportedInterfaces.every((i: { url: string }) => i.url.startsWith(`${gateway.url}/agents/agent/`)),
    ).toBe(true);
    // And the 1.0 client gets the 1.0 card, not the cached hybrid one.
    const v1 = await getCard(gateway, { 'a2a-version': '1.0' });
    expect(v1.card!.url).toBeUndefined();
  });

  it('rewrites a native 0.3 card', async () => {
    const gateway = await setup(await startPeerV03());
    const { card } = await getCard(gateway);
    expect(card!.url).toMatch(new RegExp(`^${gateway.url}/agents/agent/`));
    for (const i of card!.additionalInterfaces ?? [])
      expect(i.url).toMatch(new RegExp(`^${gateway.url}/agents/agent/`));
  });
});

describe('agents under a path prefix', () => {
  it('neither doubles nor loses the prefix', async () => {
    const peer = await startPeerV1({ prefix: '/team/reviewer' });
    const gateway = await setup(peer);
    const { card } = await getCard(gateway, { 'a2a-version': '1.0' });
    expect(card!.supportedInterfaces[0].url).toBe(`${gateway.url}/agents/agent/a2a/jsonrpc`);
    // And the rewritten URL reaches the agent's real route.
    const res = await request(`${gateway.url}/agents/agent/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'GetTask', params: { id: 'nope' } }),
    });
    const body = (await res.body.json()) as { id: number; error: { code: number } };
    expect(body).toMatchObject({ id: 7, error: { code: -32001 } });
    expect(peer.requests.at(-1)!.path).toBe('/team/reviewer/a2a/jsonrpc');
  });
});

describe('public URL', () => {
  it('uses X-Forwarded-Proto/-Host from a trusted proxy', async () => {
    const gateway = await setup(await startPeerV1(), { trustedProxies: ['127.0.0.1'] });
    const { card } = await getCard(gateway, {
      'a2a-version': '1.0',
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'agents.example.com',
    });
    expect(card!.supportedInterfaces[0].url).toBe('https://agents.example.com/agents/agent/a2a/jsonrpc');
  });

  it('ignores X-Forwarded-* from an untrusted peer and uses Host', async () => {
    const gateway = await setup(await startPeerV1());
    const { card } = await getCard(gateway, {
      'a2a-version': '1.0',
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'evil.example.com',
    });
    expect(card!.supportedInterfaces[0].url).toBe(`${gateway.url}/agents/agent/a2a/jsonrpc`);
  });

  it('prefers the configured publicUrl', async () => {
    const gateway = await setup(await startPeerV1(), {
      publicUrl: 'https://gw.example.com/a2a/',
      trustedProxies: ['127.0.0.1'],
    });
    const { card } = await getCard(gateway, { 'a2a-version': '1.0', 'x-forwarded-host': 'other.example.com' });
    expect(card!.supportedInterfaces[0].url).toBe('https://gw.example.com/a2a/agents/agent/a2a/jsonrpc');
  });
});

describe('extended card', () => {
  it('rewrites the JSON-RPC GetExtendedAgentCard result', async () => {
    const gateway = await setup(await startPeerV1({ extendedCard: true }));
    const res = await request(`${gateway.url}/agents/agent/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 'x1', method: 'GetExtendedAgentCard' }),
    });
    const text = await res.body.text();
    const body = JSON.parse(text) as { id: string; result: Record<string, any> };
    expect(body.id).toBe('x1');
    expect(body.result.name).toMatch(/extended/);
    expect(body.result.supportedInterfaces[0].url).toBe(`${gateway.url}/agents/agent/a2a/jsonrpc`);
    expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(text));
  });

  it('rewrites the REST /extendedAgentCard body', async () => {
    const gateway = await setup(await startPeerV1({ extendedCard: true }));
    const res = await request(`${gateway.url}/agents/agent/a2a/rest/extendedAgentCard`, {
      headers: { 'a2a-version': '1.0' },
    });
    const card = (await res.body.json()) as Record<string, any>;
    expect(res.statusCode).toBe(200);
    expect(card.supportedInterfaces[1].url).toBe(`${gateway.url}/agents/agent/a2a/rest`);
  });
});
