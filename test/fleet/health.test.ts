/**
 * Replica health in a running gateway, over loopback: passive ejection by live calls (5xx counts,
 * 4xx does not), active checks (a failing status, a hanging answer, recovery), a reload stopping
 * the old generation's checkers, the admin endpoints (`/admin/replicas`, drain and undrain, their
 * errors, the token, absent from the traffic listener) and the a2a_replica_* metrics.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPeerV1 } from '../peers/peer-v1.js';
import type { Peer } from '../peers/peer-common.js';
import { pollUntil } from '../peers/deadline.js';
import { scriptedUpstream } from '../support/scripted-upstream.js';
import { startTestGateway } from '../support/gateway.js';
import type { RunningGateway } from '../../src/gateway/gateway.js';
import { parseConfig } from '../../src/config/load.js';

const TOKEN = 'a-token-of-sixteen-or-more';
let peers: Peer[] = [];
let failing: Awaited<ReturnType<typeof scriptedUpstream>>;
let refusing: Awaited<ReturnType<typeof scriptedUpstream>>;
let checked: Awaited<ReturnType<typeof scriptedUpstream>> & { status: number; hang: boolean; hits: number };
let gateway: RunningGateway;

/** Answers every call with `status` and a JSON body. */
const answering = (status: number) => (_req: IncomingMessage, res: ServerResponse) => {
  res.writeHead(status, { 'content-type': 'application/json' }).end('{"error":"scripted"}');
};

function agents(withChecked = true): Record<string, unknown> {
  const quick = { interval: '50ms', timeout: '200ms', healthyThreshold: 1, unhealthyThreshold: 1 };
  return {
    // Passive only: the failing replica answers 503 to everything.
    passive: {
      upstreams: [peers[0]!.url, failing.url],
      health: { enabled: false, consecutiveFailures: 2, ejectionTime: '1h' },
    },
    // A 4xx is the caller's mistake: never an ejection.
    refusing: { upstreams: [peers[0]!.url, refusing.url], health: { enabled: false, consecutiveFailures: 1 } },
    ...(withChecked
      ? { checked: { upstreams: [peers[0]!.url, checked.url], health: { ...quick, consecutiveFailures: 0 } } }
      : {}),
    drainable: { upstreams: [peers[0]!.url, peers[1]!.url], health: { enabled: false } },
  };
}

const configOf = (agentsConfig: Record<string, unknown>) =>
  parseConfig(
    JSON.stringify({
      listen: { host: '127.0.0.1', port: 0 },
      ...adminConfig,
      shutdown: { grace: '2s' },
      agents: agentsConfig,
    }),
    'reload',
    {},
  );
const adminConfig = { admin: { listen: { host: '127.0.0.1', port: 0 }, token: TOKEN } };
const auth = { authorization: `Bearer ${TOKEN}` };

beforeAll(async () => {
  peers = await Promise.all([startPeerV1({ stepMs: 5 }), startPeerV1({ stepMs: 5 })]);
  failing = await scriptedUpstream(answering(503));
  refusing = await scriptedUpstream(answering(400));
  const state = { status: 200, hang: false, hits: 0 };
  const upstream = await scriptedUpstream((_req, res) => {
    state.hits++;
    if (!state.hang) answering(state.status)(_req, res);
  });
  checked = Object.assign(state, upstream);
  gateway = await startTestGateway(agents() as never, adminConfig);
}, 30_000);

afterAll(async () => {
  await gateway?.close();
  await Promise.all([...peers.map((p) => p.close()), failing?.close(), refusing?.close(), checked?.close()]);
});

interface Row {
  url: string;
  state: string;
  drained: boolean;
  outstanding: number;
  lastCheck: { ok: boolean; detail: string } | null;
  consecutiveCheckFailures: number;
}

async function rows(agent: string): Promise<Row[]> {
  const res = await fetch(`${gateway.adminUrl}/admin/replicas`, { headers: auth });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { agents: Array<{ agent: string; replicas: Row[] }> };
  return body.agents.find((a) => a.agent === agent)!.replicas;
}

const rowOf = async (agent: string, url: string) => (await rows(agent)).find((r) => r.url === url)!;

async function metrics(): Promise<string> {
  return (await fetch(gateway.metricsUrl!, { headers: auth })).text();
}

function send(agent: string, i: number): Promise<number> {
  return fetch(`${gateway.url}/agents/${agent}/a2a/jsonrpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: i,
      method: 'SendMessage',
      params: {
        message: { messageId: `m-${agent}-${i}-${Math.random()}`, role: 'ROLE_USER', parts: [{ text: 'hi' }] },
      },
    }),
  }).then(async (r) => (await r.text(), r.status));
}

/** a2a_replica_health_check_failures_total of the checked replica, under any agent label (a
 * reload that removes the agent turns its label into `other`). */
const checkFailures = (text: string) =>
  text
    .split('\n')
    .filter((l) => l.startsWith('a2a_replica_health_check_failures_total{') && l.includes(`"${checked.url}"`))
    .reduce((sum, l) => sum + Number(l.split(' ').pop()), 0);

const sendsAt = (peer: Peer) => peer.requests.filter((r) => r.method === 'POST').length;

describe('passive outlier ejection', () => {
  it('ejects a replica after consecutiveFailures 5xx answers; new conversations then avoid it', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push(await send('passive', i));
    expect(statuses.filter((s) => s === 503)).toHaveLength(2); // round robin: every other call met it
    expect(await rowOf('passive', failing.url)).toMatchObject({ state: 'ejected', drained: false });
    const before = sendsAt(peers[0]!);
    for (let i = 0; i < 4; i++) expect(await send('passive', 10 + i)).toBe(200);
    expect(sendsAt(peers[0]!)).toBe(before + 4);
    const text = await metrics();
    expect(text).toContain(`a2a_replica_ejections_total{agent="passive",replica="${failing.url}"} 1`);
    expect(text).toContain(`a2a_replica_state{agent="passive",replica="${failing.url}",state="ejected"} 1`);
    expect(text).toContain(`a2a_replica_healthy{agent="passive",replica="${failing.url}"} 0`);
    expect(text).toContain(`a2a_replica_healthy{agent="passive",replica="${peers[0]!.url}"} 1`);
  });

  it('does not eject for 4xx answers', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push(await send('refusing', i));
    expect(statuses.filter((s) => s === 400)).toHaveLength(3);
    expect(await rowOf('refusing', refusing.url)).toMatchObject({ state: 'healthy' });
  });
});

describe('active health checks', () => {
  it('marks a replica unhealthy on a failing status and healthy again when it passes', async () => {
    checked.status = 500;
    const row = await pollUntil(
      () => rowOf('checked', checked.url),
      (r) => r.state === 'unhealthy',
      10_000,
      'unhealthy',
    );
    expect(row.lastCheck).toMatchObject({ ok: false, detail: 'HTTP 500' });
    expect(await metrics()).toMatch(
      new RegExp(`a2a_replica_health_check_failures_total\\{agent="checked",replica="${checked.url}"\\} [1-9]`),
    );
    checked.status = 204;
    await pollUntil(
      () => rowOf('checked', checked.url),
      (r) => r.state === 'healthy',
      10_000,
      'healthy',
    );
  });

  it('counts an answer that does not come within the timeout as a failure', async () => {
    checked.hang = true;
    const row = await pollUntil(
      () => rowOf('checked', checked.url),
      (r) => r.state === 'unhealthy',
      10_000,
      'unhealthy by timeout',
    );
    expect(row.lastCheck?.detail).toContain('no answer within 200 ms');
    checked.hang = false;
    await pollUntil(
      () => rowOf('checked', checked.url),
      (r) => r.state === 'healthy',
      10_000,
      'healthy',
    );
  });

  it('keeps an unchanged replica unhealthy across a reload', async () => {
    checked.status = 500;
    const row = await pollUntil(
      () => rowOf('checked', checked.url),
      (r) => r.state === 'unhealthy' && r.consecutiveCheckFailures >= 5,
      10_000,
      'five failed checks',
    );
    expect(gateway.reload(configOf(agents())).ok).toBe(true);
    // Read at once: a fresh generation would have counted at most the one check since the reload.
    const after = await rowOf('checked', checked.url);
    expect(after.state).toBe('unhealthy');
    expect(after.consecutiveCheckFailures).toBeGreaterThanOrEqual(row.consecutiveCheckFailures);
    checked.status = 200;
    await pollUntil(
      () => rowOf('checked', checked.url),
      (r) => r.state === 'healthy',
      10_000,
      'healthy',
    );
  });

  it("stops the old generation's checkers on reload", async () => {
    expect(gateway.reload(configOf(agents(false))).ok).toBe(true);
    // A check already out when the reload came may still land: settle, then count.
    await new Promise((r) => setTimeout(r, 300));
    const [hits, failures] = [checked.hits, checkFailures(await metrics())];
    await new Promise((r) => setTimeout(r, 500)); // ten intervals
    expect(checked.hits).toBe(hits);
    // Nor does a checker of the released generation go on failing against its closed pool.
    expect(checkFailures(await metrics())).toBe(failures);
  });
});

describe('the admin endpoints', () => {
  const drain = (agent: string, body: unknown, verb = 'drain', headers: Record<string, string> = auth) =>
    fetch(`${gateway.adminUrl}/admin/agents/${agent}/replicas/${verb}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  it('drains a replica (new conversations avoid it) and undrains it', async () => {
    const [a, b] = peers as [Peer, Peer];
    const res = await drain('drainable', { url: `${b.url}/` });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ agent: 'drainable', url: b.url, drained: true, state: 'healthy' });
    expect(await rowOf('drainable', b.url)).toMatchObject({ drained: true });
    const [atA, atB] = [sendsAt(a), sendsAt(b)];
    for (let i = 0; i < 4; i++) expect(await send('drainable', i)).toBe(200);
    expect([sendsAt(a) - atA, sendsAt(b) - atB]).toEqual([4, 0]);
    expect((await drain('drainable', { url: b.url }, 'undrain')).status).toBe(200);
    expect(await rowOf('drainable', b.url)).toMatchObject({ drained: false });
    for (let i = 0; i < 4; i++) expect(await send('drainable', 10 + i)).toBe(200);
    expect(sendsAt(b) - atB).toBeGreaterThan(0);
  });

  it('names what is wrong: an unknown agent, an unknown replica, a body without url', async () => {
    const agent = await drain('nobody', { url: peers[0]!.url });
    expect(agent.status).toBe(404);
    expect(((await agent.json()) as { error: { message: string } }).error.message).toContain('"nobody"');
    const replica = await drain('drainable', { url: 'http://127.0.0.1:1' });
    expect(replica.status).toBe(404);
    const message = ((await replica.json()) as { error: { message: string } }).error.message;
    expect(message).toContain('http://127.0.0.1:1');
    expect(message).toContain(peers[1]!.url);
    for (const body of ['not json', {}, { url: 3 }]) {
      const bad = await drain('drainable', body);
      expect(bad.status).toBe(400);
      expect(await bad.json()).toMatchObject({ error: { status: 'INVALID_ARGUMENT' } });
    }
  });

  it('requires the admin token, and is not on the traffic listener', async () => {
    expect((await fetch(`${gateway.adminUrl}/admin/replicas`)).status).toBe(401);
    expect((await drain('drainable', { url: peers[1]!.url }, 'drain', {})).status).toBe(401);
    expect(await rowOf('drainable', peers[1]!.url)).toMatchObject({ drained: false });
    expect((await fetch(`${gateway.url}/admin/replicas`, { headers: auth })).status).toBe(404);
    const traffic = await fetch(`${gateway.url}/admin/agents/drainable/replicas/drain`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...auth },
      body: JSON.stringify({ url: peers[1]!.url }),
    });
    expect(traffic.status).toBe(404);
  });
});
