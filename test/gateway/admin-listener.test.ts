/** The operator plane apart from traffic (issue #13 item 1): recorded exchanges, task stories,
 * metrics and the full catalog are on the admin listener only, behind `admin.token` when it is
 * set; the traffic listener's answers never name an agent's own address. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startPeerV1 } from '../peers/peer-v1.js';
import type { Peer } from '../peers/peer-common.js';
import { startTestGateway } from '../support/gateway.js';
import type { RunningGateway } from '../../src/gateway/gateway.js';

const TOKEN = 'admin-token-0123456789abcdef';
const CARD = '/agents/a/.well-known/agent-card.json';

async function sendTask(gateway: RunningGateway): Promise<string> {
  const res = await fetch(`${gateway.url}/agents/a/a2a/jsonrpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: { message: { messageId: 'm-admin', role: 'ROLE_USER', parts: [{ text: 'process this' }] } },
    }),
    signal: AbortSignal.timeout(10_000),
  });
  const body = (await res.json()) as { result: { task: { id: string } } };
  return body.result.task.id;
}

async function until(check: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function listening(port: number): Promise<Server> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  return server;
}

const closed = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));

const get = (url: string, authorization?: string) =>
  fetch(url, { headers: authorization ? { authorization } : {}, signal: AbortSignal.timeout(10_000) });

let peer: Peer;
let open: RunningGateway;
let guarded: RunningGateway;
let taskId: string;

beforeAll(async () => {
  peer = await startPeerV1({ stepMs: 10 });
  open = await startTestGateway({ a: { url: peer.url } });
  guarded = await startTestGateway(
    { a: { url: peer.url } },
    { admin: { listen: { host: '127.0.0.1', port: 0 }, token: TOKEN } },
  );
  taskId = await sendTask(guarded);
  await sendTask(open);
  await until(() => open.registry.ready() && guarded.registry.ready());
});

afterAll(async () => {
  await Promise.all([open?.close(), guarded?.close()]);
  await peer?.close();
});

describe('the traffic listener', () => {
  it.each(['/exchanges', '/exchanges?agent=a', '/tasks/a/x', '/metrics'])(
    'answers %s with the generic 404',
    async (path) => {
      const res = await get(`${open.url}${path}`);
      expect(res.status).toBe(404);
      const body = (await res.json()) as { error: { code: number; status: string; message: string } };
      expect(body.error).toMatchObject({ code: 404, status: 'NOT_FOUND' });
      expect(body.error.message).toMatch(/^no route for GET \/(exchanges|tasks|metrics)/);
    },
  );

  it('lists each agent with its URL at the gateway, readiness and the card its clients get, nothing more', async () => {
    const res = await get(`${open.url}/agents`);
    expect(res.status).toBe(200);
    const { agents } = (await res.json()) as { agents: Array<Record<string, unknown>> };
    expect(agents).toHaveLength(1);
    expect(Object.keys(agents[0]!).sort()).toEqual(['card', 'name', 'ready', 'url']);
    expect(agents[0]).toMatchObject({ name: 'a', url: `${open.url}/agents/a/`, ready: true });
    const card = await (await fetch(`${open.url}${CARD}`, { headers: { 'a2a-version': '1.0' } })).json();
    expect(agents[0]!['card']).toEqual(card);
    expect(await (await get(`${open.url}/agents/`)).json()).toEqual({ agents });
  });

  it("never names the agent's own address", async () => {
    const upstream = new URL(peer.url).host;
    const paths = ['/agents', '/agents/', CARD, '/healthz', '/readyz', '/nowhere', '/agents/unknown/', '/agents/a'];
    for (const path of paths) {
      const res = await fetch(`${open.url}${path}`, { redirect: 'manual', headers: { 'a2a-version': '1.0' } });
      const text = await res.text();
      expect(text.length, path).toBeGreaterThan(0);
      expect(text, path).not.toContain(upstream);
      expect(res.headers.get('location') ?? '', path).not.toContain(upstream);
    }
  });
});

describe('the admin listener', () => {
  const paths = () => ['/healthz', '/readyz', '/agents', '/agents/', '/exchanges', `/tasks/a/${taskId}`, '/metrics'];

  it('with admin.token: refuses every path without the token, or with a wrong one, with a challenge', async () => {
    const wrong = [undefined, 'Bearer wrong', `Bearer ${TOKEN}x`, `Basic ${TOKEN}`, `Bearer ${TOKEN.slice(0, -1)}`];
    for (const path of [...paths(), '/tasks/a/unknown', '/nowhere']) {
      for (const authorization of wrong) {
        const res = await get(`${guarded.adminUrl}${path}`, authorization);
        expect(res.status, `${path} ${authorization}`).toBe(401);
        expect(res.headers.get('www-authenticate')).toBe('Bearer realm="a2a-gateway-admin"');
        const body = (await res.json()) as { error: Record<string, unknown> };
        expect(body.error).toMatchObject({ code: 401, status: 'UNAUTHENTICATED' });
        expect(body.error['message']).toEqual(expect.any(String));
      }
    }
  });

  it('with admin.token: answers every path with the token', async () => {
    for (const path of paths()) {
      const res = await get(`${guarded.adminUrl}${path}`, `Bearer ${TOKEN}`);
      expect(res.status, path).toBe(200);
      await res.arrayBuffer();
    }
    const res = await get(`${guarded.adminUrl}/nowhere`, `bearer ${TOKEN}`);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: unknown }).error).toMatchObject({ code: 404, status: 'NOT_FOUND' });
  });

  it('without admin.token: answers every path', async () => {
    for (const path of paths().filter((p) => !p.startsWith('/tasks/'))) {
      const res = await get(`${open.adminUrl}${path}`);
      expect(res.status, path).toBe(200);
      await res.arrayBuffer();
    }
    const exchanges = (await (await get(`${open.adminUrl}/exchanges?agent=a`)).json()) as { exchanges: unknown[] };
    expect(exchanges.exchanges.length).toBeGreaterThan(0);
    expect(await (await get(`${open.adminUrl}/metrics`)).text()).toContain('a2a_requests_total{agent="a"');
  });

  it("has the full catalog, with each agent's own URL", async () => {
    const { agents } = (await (await get(`${open.adminUrl}/agents`)).json()) as {
      agents: Array<Record<string, unknown>>;
    };
    expect(agents[0]).toMatchObject({ name: 'a', upstream: peer.url, reachable: true, url: `${open.url}/agents/a/` });
    expect((agents[0]!['card'] as { name: string }).name).toMatch(/a2a-js peer/);
  });

  it('answers a task story, and 404 for a task it does not track', async () => {
    const story = await get(`${guarded.adminUrl}/tasks/a/${taskId}`, `Bearer ${TOKEN}`);
    expect(await story.json()).toMatchObject({ agent: 'a', taskId });
    expect((await get(`${guarded.adminUrl}/tasks/a/unknown`, `Bearer ${TOKEN}`)).status).toBe(404);
  });
});

describe('the admin listener with metrics off', () => {
  it('has no /metrics', async () => {
    const gateway = await startTestGateway({ a: { url: peer.url } }, { metrics: { enabled: false } });
    try {
      expect(gateway.metricsUrl).toBeUndefined();
      expect((await get(`${gateway.adminUrl}/metrics`)).status).toBe(404);
      expect((await get(`${gateway.adminUrl}/exchanges`)).status).toBe(200);
    } finally {
      await gateway.close();
    }
  });
});

describe('an admin address that is taken', () => {
  it('fails the start naming admin.listen, and leaves the traffic port free', async () => {
    const squatter = await listening(0);
    const taken = (squatter.address() as AddressInfo).port;
    const free = await listening(0);
    const traffic = (free.address() as AddressInfo).port;
    await closed(free);
    try {
      await expect(
        startTestGateway(
          { a: { url: peer.url } },
          { listen: { host: '127.0.0.1', port: traffic }, admin: { listen: { host: '127.0.0.1', port: taken } } },
        ),
      ).rejects.toThrow(`cannot listen on 127.0.0.1:${taken} (admin.listen): EADDRINUSE`);
      // The traffic listener it had opened is closed again.
      await closed(await listening(traffic));
    } finally {
      await closed(squatter);
    }
  });
});
