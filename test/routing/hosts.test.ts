/**
 * Routing by host (`agents.{name}.hosts`, src/pipeline/route.ts): the official SDK clients, given
 * only `http://localhost:<port>/`, run the A2A scenarios through the gateway to real SDK agents
 * on loopback (`localhost` resolves to 127.0.0.1 here, where the gateway listens). The served
 * card points at that host's root; the same agent stays reachable by path on the gateway's other
 * names; an unknown host falls through to path routing and its 404s; normalisation, access
 * control, the timeout rescue, records and reload work as for path-routed requests.
 */
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPeerV1 } from '../peers/peer-v1.js';
import { startPeerV03 } from '../peers/peer-v03.js';
import type { Peer } from '../peers/peer-common.js';
import { clientV03, clientV1, sendRequestV1, userMessageV1, type TransportName } from '../peers/clients.js';
import { within, withDeadline } from '../peers/deadline.js';
import { asMessage } from '../peers/inspect.js';
import { sdkScenariosV03, sdkScenariosV1 } from '../peers/scenarios.js';
import { startTestGateway } from '../support/gateway.js';
import { capturedLog, configOf } from '../reload/support.js';
import type { RunningGateway } from '../../src/gateway/gateway.js';
import type { Exchange } from '../../src/exchange/exchange.js';
import type { ExchangeRecord } from '../../src/exchange/record.js';

const STEP = 30;
const TRANSPORTS: TransportName[] = ['JSONRPC', 'HTTP+JSON'];
const CARD = '/.well-known/agent-card.json';

const portOf = (gateway: RunningGateway) => new URL(gateway.url).port;
const hostBase = (gateway: RunningGateway) => `http://localhost:${portOf(gateway)}`;

interface RawAnswer {
  status: number;
  body: string;
  json: () => Record<string, any>;
}

/** One request with the target and `Host` exactly as given (fetch would resolve dot-segments). */
function raw(gateway: RunningGateway, path: string, host: string, init: { method?: string; body?: string } = {}) {
  const headers: Record<string, string> = { host, 'a2a-version': '1.0' };
  if (init.body) headers['content-type'] = 'application/json';
  return new Promise<RawAnswer>((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: portOf(gateway), path, method: init.method ?? 'GET', headers });
    req.on('error', reject);
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, json: () => JSON.parse(body) }));
    });
    req.end(init.body);
  });
}

const interfaceUrls = (card: Record<string, any>): string[] =>
  (card.supportedInterfaces as Array<{ url: string }>).map((i) => i.url);

describe.each(TRANSPORTS)('A2A 1.0 by host over %s', (transport) => {
  let peer: Peer;
  let gateway: RunningGateway;
  beforeAll(async () => {
    // Under a prefix: the host's root maps onto the agent's base URL, whatever its path.
    peer = await startPeerV1({ stepMs: STEP, prefix: '/team/reviewer', extendedCard: true });
    gateway = await startTestGateway({ reviewer: { url: peer.url, hosts: ['localhost'] } });
  });
  afterAll(async () => {
    await gateway.close();
    await peer.close();
  });
  const client = () => withDeadline(clientV1(`${hostBase(gateway)}/`, { transport }), 5000, 'card by host');

  it('serves the card at the host root, its interfaces at that origin', async () => {
    const res = await fetch(`${hostBase(gateway)}${CARD}`);
    expect(res.status).toBe(200);
    const urls = interfaceUrls((await res.json()) as Record<string, any>);
    expect(urls.length).toBeGreaterThan(0);
    for (const url of urls) {
      expect(url.startsWith(`${hostBase(gateway)}/`), url).toBe(true);
      expect(url).not.toContain('/agents/');
      expect(url).not.toContain('/team/reviewer');
    }
  });

  sdkScenariosV1(client, { transport, extendedCard: true });

  it('rewrites the extended card to the host too', async () => {
    const card = await (await client()).getAgentCard(within(2000));
    expect(card.name).toContain('(extended)');
    for (const i of card.supportedInterfaces) expect(i.url.startsWith(`${hostBase(gateway)}/`), i.url).toBe(true);
  });

  it('reached the agent under its prefix, through the gateway only', () => {
    const calls = peer.requests.filter((r) => r.method === 'POST');
    expect(calls.length).toBeGreaterThan(0);
    for (const r of calls) {
      expect(r.path.startsWith('/team/reviewer/'), r.path).toBe(true);
      expect(r.headers['x-forwarded-for']).toBe('127.0.0.1');
    }
  });
});

describe.each(TRANSPORTS)('A2A 0.3 by host over %s', (transport) => {
  let peer: Peer;
  let gateway: RunningGateway;
  beforeAll(async () => {
    peer = await startPeerV03({ stepMs: STEP });
    gateway = await startTestGateway({ legacy: { url: peer.url, hosts: ['localhost'] } });
  });
  afterAll(async () => {
    await gateway.close();
    await peer.close();
  });
  const client = () => withDeadline(clientV03(`${hostBase(gateway)}/`, { transport }), 5000, 'card by host');

  it('gets a card whose url is at the host', async () => {
    const card = await (await client()).getAgentCard(within(2000));
    expect(card.url.startsWith(`${hostBase(gateway)}/`), card.url).toBe(true);
  });

  sdkScenariosV03(client, { transport });
});

describe('host routing beside path routing', () => {
  let reviewer: Peer;
  let other: Peer;
  let gateway: RunningGateway;
  const records: ExchangeRecord[] = [];
  const { logger, lines } = capturedLog();
  beforeAll(async () => {
    [reviewer, other] = await Promise.all([startPeerV1({ stepMs: STEP }), startPeerV1({ stepMs: STEP })]);
    gateway = await startTestGateway(
      { reviewer: { url: reviewer.url, hosts: ['localhost'] }, other: { url: other.url } },
      {},
      [{ onFinish: (ex: Exchange) => void records.push(ex.record) }],
      logger,
    );
  });
  afterAll(async () => {
    await gateway.close();
    await Promise.all([reviewer.close(), other.close()]);
  });

  it('still serves the host-routed agent by path on the gateway address', async () => {
    const c = await withDeadline(clientV1(`${gateway.url}/agents/reviewer/`, { transport: 'JSONRPC' }), 5000, 'card');
    const card = await c.getAgentCard(within(2000));
    for (const i of card.supportedInterfaces) expect(i.url.startsWith(`${gateway.url}/agents/reviewer/`)).toBe(true);
    const msg = asMessage(await c.sendMessage(sendRequestV1(userMessageV1('what is 6x7?')), within(5000)));
    expect(JSON.stringify(msg)).toContain('Answer: 42.');
  });

  it('sends the whole target of a host to its agent, /agents/… and /healthz included', async () => {
    const before = reviewer.requests.length;
    expect(
      (await raw(gateway, '/agents/other/a2a/jsonrpc', 'localhost', { method: 'POST', body: '{}' })).status,
    ).not.toBe(200);
    await raw(gateway, '/healthz', 'localhost');
    const seen = reviewer.requests.slice(before).filter((r) => !r.path.startsWith('/.well-known/'));
    expect(seen.map((r) => r.path)).toEqual(['/agents/other/a2a/jsonrpc', '/healthz']);
    expect(other.requests.some((r) => r.path.startsWith('/agents/'))).toBe(false);
  });

  it('routes LOCALHOST. with a port (case, trailing dot and port ignored)', async () => {
    const res = await raw(gateway, CARD, `LOCALHOST.:${portOf(gateway)}`);
    expect(res.status).toBe(200);
    for (const url of interfaceUrls(res.json()))
      expect(url.startsWith(`http://LOCALHOST.:${portOf(gateway)}/`)).toBe(true);
  });

  it('leaves an unknown host to path routing and its 404s', async () => {
    const card = await raw(gateway, CARD, 'unknown.example');
    expect(card.status).toBe(404);
    expect(card.body).toContain('agents are served under /agents/{name}/');
    const missing = await raw(gateway, '/agents/nope/a2a/jsonrpc', 'unknown.example', { method: 'POST', body: '{}' });
    expect(missing.status).toBe(404);
    expect(missing.body).toContain('no agent named \\"nope\\"');
    expect((await raw(gateway, `/agents/other${CARD}`, 'unknown.example')).status).toBe(200);
  });

  it('refuses a target that climbs above the host root, and resolves one that does not', async () => {
    const before = reviewer.requests.length;
    for (const path of ['/../etc/passwd', '/a2a/%2e%2e/%2E%2E/x', '/..%2fx/..'])
      expect((await raw(gateway, path, 'localhost')).status, path).toBe(400);
    expect(reviewer.requests.length).toBe(before);
    expect((await raw(gateway, `/a2a/..${CARD}`, 'localhost')).status).toBe(200);
  });

  it('records the agent and the path as the client sent it, in records and the access log', async () => {
    records.length = 0;
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: { message: { messageId: 'm-host', role: 'ROLE_USER', parts: [{ text: 'what is 1+1?' }] } },
    });
    expect((await raw(gateway, '/a2a/jsonrpc', 'localhost', { method: 'POST', body })).status).toBe(200);
    await expect.poll(() => records.length).toBe(1);
    expect(records[0]).toMatchObject({ agent: 'reviewer', path: '/a2a/jsonrpc', httpMethod: 'POST' });
    const log = lines.filter((l) => l.msg === 'exchange' && l.path === '/a2a/jsonrpc');
    expect(log.at(-1)).toMatchObject({ agent: 'reviewer', status: 200 });
  });

  it('lists the host URL in the public and the admin catalogs', async () => {
    const pub = (await (await fetch(`${gateway.url}/agents`)).json()) as { agents: Array<Record<string, any>> };
    const admin = (await (await fetch(`${gateway.adminUrl}/agents`)).json()) as { agents: Array<Record<string, any>> };
    for (const agents of [pub.agents, admin.agents]) {
      const entry = agents.find((a) => a.name === 'reviewer')!;
      expect(entry).toMatchObject({ url: `${gateway.url}/agents/reviewer/`, hostUrls: [`${hostBase(gateway)}/`] });
      expect(agents.find((a) => a.name === 'other')).not.toHaveProperty('hostUrls');
    }
  });
});

describe('access control and the timeout rescue by host', () => {
  const PLANNER = 'planner-key-0123456789';
  let peer: Peer;
  let gateway: RunningGateway;
  beforeAll(async () => {
    peer = await startPeerV1({ slowMs: 3000 });
    const rescue = { enabled: true, clientTimeout: '2s', margin: '1s' };
    gateway = await startTestGateway(
      { reviewer: { url: peer.url, hosts: ['localhost'], access: { allow: ['team-a'] }, timeoutRescue: rescue } },
      { auth: { apiKeys: { planner: { key: PLANNER, groups: ['team-a'] }, other: { key: 'other-key-0123456789' } } } },
    );
  });
  afterAll(async () => {
    await gateway.close();
    await peer.close();
  });
  const send = (text: string, key?: string) =>
    fetch(`${hostBase(gateway)}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...(key ? { 'x-api-key': key } : {}) },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'SendMessage',
        params: { message: { messageId: `m-${text}`, role: 'ROLE_USER', parts: [{ text }] } },
      }),
    });

  it('refuses who may not call, before the agent', async () => {
    const before = peer.requests.filter((r) => r.method === 'POST').length;
    expect((await send('what is 1+1?')).status).toBe(401);
    expect((await send('what is 1+1?', 'other-key-0123456789')).status).toBe(403);
    expect(peer.requests.filter((r) => r.method === 'POST').length).toBe(before);
    expect((await send('what is 1+1?', PLANNER)).status).toBe(200);
  });

  it('rescues a blocking send that outlasts the client', async () => {
    const res = await send('slow by host', PLANNER);
    expect(res.headers.get('a2a-gateway-rescue')).toBe('deadline');
    expect(await res.text()).toContain('TASK_STATE_WORKING');
  }, 10_000);
});

describe('a reload that adds a host', () => {
  it('routes the host from then on', async () => {
    const peer = await startPeerV1({ stepMs: STEP });
    const gateway = await startTestGateway({ reviewer: { url: peer.url } });
    try {
      expect((await raw(gateway, CARD, 'localhost')).status).toBe(404);
      const report = gateway.reload(configOf({ reviewer: { url: peer.url, hosts: ['localhost'] } }));
      expect(report.ok).toBe(true);
      const c = await withDeadline(clientV1(`${hostBase(gateway)}/`, { transport: 'HTTP+JSON' }), 5000, 'card');
      const msg = asMessage(await c.sendMessage(sendRequestV1(userMessageV1('what is 2+2?')), within(5000)));
      expect(JSON.stringify(msg)).toContain('Answer: 42.');
    } finally {
      await gateway.close();
      await peer.close();
    }
  });
});
