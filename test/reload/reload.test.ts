/**
 * Reload without dropping traffic (issue #14 item 3), in process, on loopback sockets with real
 * SDK agents (test/peers/peer-v1.ts) and a scripted SSE agent the test releases event by event:
 * new config for new requests, streams in flight finish on the old one, a refused config leaves
 * traffic alone and says so in the log, the admin /readyz and /metrics.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { startPeerV1 } from '../peers/peer-v1.js';
import type { Peer } from '../peers/peer-common.js';
import { clientV1, sendRequestV1, userMessageV1 } from '../peers/clients.js';
import type { RunningGateway } from '../../src/gateway/gateway.js';
import { reloadFromFile, serialised } from '../../src/reload/from-file.js';
import {
  baseConfig,
  configOf,
  EVENTS,
  getJson,
  heldStream,
  metricsText,
  openStream,
  send,
  start,
  until,
} from './support.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
const track = <T extends { close: () => Promise<void> }>(thing: T): T => {
  cleanups.push(() => thing.close());
  return thing;
};

async function peer(): Promise<Peer> {
  return track(await startPeerV1());
}

const message = (lines: Record<string, unknown>[]) => lines.map((l) => String(l.msg));

describe('a reload that adds an agent', () => {
  it('lets a stream open before it flow to its end, byte for byte, and serves the new agent', async () => {
    const stream = track(await heldStream());
    const added = await peer();
    const { gateway, lines } = await start({ s: { url: stream.url } });
    track(gateway);
    const open = await openStream(`${gateway.url}/agents/s/rpc`);
    expect(open.first).toBe(EVENTS[0]);
    expect((await send(`${gateway.url}/agents/b/a2a/jsonrpc`)).status).toBe(404);
    expect((await getJson(`${gateway.url}/agents/b/.well-known/agent-card.json`)).status).toBe(404);

    const report = gateway.reload(configOf({ s: { url: stream.url }, b: { url: added.url } }));
    expect(report).toMatchObject({ ok: true, agents: ['s', 'b'], added: ['b'], removed: [], needsRestart: [] });

    // The new agent answers at once, through the SDK client: its card, then a SendMessage.
    const client = await clientV1(`${gateway.url}/agents/b/`, { transport: 'JSONRPC' });
    const answer = await client.sendMessage(sendRequestV1(userMessageV1('what is 2+2?')));
    expect(JSON.stringify(answer)).toContain('You asked: what is 2+2? Answer: 42.');
    expect((await getJson(`${gateway.url}/agents/b/.well-known/agent-card.json`)).status).toBe(200);
    // The old generation is not released while its stream is open.
    expect(message(lines)).not.toContain('previous config released');

    stream.release();
    expect(open.first + (await open.rest())).toBe(EVENTS.join(''));
    await until(() => message(lines).includes('previous config released'));
  });

  it("counts the new agent's requests under its own name, its zero series started", async () => {
    const [a, b] = [await peer(), await peer()];
    const { gateway } = await start({ a: { url: a.url } });
    track(gateway);
    expect(await metricsText(gateway)).not.toContain('agent="b"');
    gateway.reload(configOf({ a: { url: a.url }, b: { url: b.url } }));
    expect(await metricsText(gateway)).toContain('a2a_rate_limited_total{agent="b"} 0');
    expect((await send(`${gateway.url}/agents/b/a2a/jsonrpc`)).status).toBe(200);
    const text = await metricsText(gateway);
    expect(text).toMatch(/^a2a_requests_total\{agent="b",method="SendMessage",[^}]*\} 1$/m);
    expect(text).toMatch(/^a2a_config_reloads_total\{result="success"\} 1$/m);
    expect(text).toMatch(/^a2a_config_last_reload_success 1$/m);
  });
});

describe('a reload that removes an agent', () => {
  it('answers new requests to it with the unknown-agent 404, and lets its stream finish', async () => {
    const stream = track(await heldStream());
    const kept = await peer();
    const { gateway } = await start({ s: { url: stream.url }, a: { url: kept.url } });
    track(gateway);
    const open = await openStream(`${gateway.url}/agents/s/rpc`);
    expect(gateway.reload(configOf({ a: { url: kept.url } }))).toMatchObject({ ok: true, removed: ['s'] });

    const refused = await send(`${gateway.url}/agents/s/rpc`);
    expect(refused.status).toBe(404);
    expect(refused.body).toMatchObject({ error: { data: [{ reason: 'AGENT_NOT_FOUND' }] } });
    expect((await send(`${gateway.url}/agents/a/a2a/jsonrpc`)).status).toBe(200);
    stream.release();
    expect(open.first + (await open.rest())).toBe(EVENTS.join(''));
  });
});

describe('an invalid config', () => {
  it('leaves traffic as it was; logged with key paths, on /readyz and /metrics; a valid reload clears it', async () => {
    const a = await peer();
    const dir = mkdtempSync(join(tmpdir(), 'a2a-gw-reload-'));
    const file = join(dir, 'gw.yaml');
    const { gateway, lines } = await start({ a: { url: a.url } });
    track(gateway);
    await until(() => gateway.registry.ready());
    const before = await send(`${gateway.url}/agents/a/a2a/jsonrpc`);
    expect(before.status).toBe(200);

    writeFileSync(file, JSON.stringify({ ...baseConfig(), agents: { a: { url: a.url }, b: { url: 'not-a-url' } } }));
    const report = reloadFromFile(file, gateway);
    const problem = 'agents.b.url: must be an absolute http:// or https:// URL (got "not-a-url")';
    expect(report).toMatchObject({ ok: false, errors: [problem] });

    const after = await send(`${gateway.url}/agents/a/a2a/jsonrpc`);
    expect(after.status).toBe(200);
    expect(after.body.result.task.status.state).toBe(before.body.result.task.status.state);
    expect((await send(`${gateway.url}/agents/b/a2a/jsonrpc`)).status).toBe(404);
    const logged = lines.find((l) => l.level === 50 && Array.isArray(l.errors));
    expect(logged?.errors).toEqual([problem]);
    expect(String(logged?.msg)).toContain(problem);
    // The admin listener says why; the traffic one only that the gateway is ready (issue #29 item 5).
    expect(await getJson(`${gateway.adminUrl}/readyz`)).toEqual({
      status: 200,
      body: { status: 'ready', lastReload: { ok: false, at: report.at, errors: [problem] } },
    });
    expect(await getJson(`${gateway.url}/readyz`)).toEqual({ status: 200, body: { status: 'ready' } });
    let text = await metricsText(gateway);
    expect(text).toMatch(/^a2a_config_reloads_total\{result="failure"\} 1$/m);
    expect(text).toMatch(/^a2a_config_reloads_total\{result="success"\} 0$/m);
    expect(text).toMatch(/^a2a_config_last_reload_success 0$/m);

    writeFileSync(file, JSON.stringify({ ...baseConfig(), agents: { a: { url: a.url } } }));
    const fixed = reloadFromFile(file, gateway);
    expect(fixed.ok).toBe(true);
    expect((await getJson(`${gateway.adminUrl}/readyz`)).body).toEqual({
      status: 'ready',
      lastReload: { ok: true, at: fixed.at },
    });
    text = await metricsText(gateway);
    expect(text).toMatch(/^a2a_config_reloads_total\{result="success"\} 1$/m);
    expect(text).toMatch(/^a2a_config_last_reload_success 1$/m);
  });
});

describe('a reload that changes the auth rules', () => {
  it('asks new requests for an API key', async () => {
    const a = await peer();
    const { gateway } = await start({ a: { url: a.url } });
    track(gateway);
    const url = `${gateway.url}/agents/a/a2a/jsonrpc`;
    expect((await send(url)).status).toBe(200);

    const auth = { apiKeys: { planner: { key: 'planner-key-0123456789' } } };
    expect(gateway.reload(configOf({ a: { url: a.url } }, { auth })).ok).toBe(true);
    const refused = await send(url);
    expect(refused.status).toBe(401);
    expect(refused.body).toMatchObject({ error: { data: [{ reason: 'UNAUTHENTICATED' }] } });
    expect((await send(url, { 'x-api-key': 'planner-key-0123456789' })).status).toBe(200);
  });
});

describe('a reload that changes a restart-only key', () => {
  it('applies the rest, warns naming the key, and retunes the live client limits', async () => {
    const [a, b] = [await peer(), await peer()];
    const { gateway, lines } = await start({ a: { url: a.url } });
    track(gateway);
    const next = configOf(
      { a: { url: a.url }, b: { url: b.url } },
      { log: { level: 'debug' }, limits: { keepAliveTimeout: '7s' } },
    );
    const report = gateway.reload(next);
    expect(report).toMatchObject({ ok: true, added: ['b'], needsRestart: ['log'] });
    const warning = lines.find((l) => l.level === 40 && Array.isArray(l.keys));
    expect(warning?.keys).toEqual(['log']);
    expect(String(warning?.msg)).toMatch(/log need a restart/);
    expect((await send(`${gateway.url}/agents/b/a2a/jsonrpc`)).status).toBe(200);
    expect(gateway.server.keepAliveTimeout).toBe(7000);
  });
});

describe('a reload that changes admin.token', () => {
  it('asks new admin requests for the new token', async () => {
    const a = await peer();
    const admin = (token: string) => ({ admin: { listen: { host: '127.0.0.1', port: 0 }, token } });
    const [before, after] = ['admin-token-before-0123', 'admin-token-after-01234'];
    const { gateway } = await start({ a: { url: a.url } }, admin(before));
    track(gateway);
    const exchanges = (token: string) =>
      getJson(`${gateway.adminUrl}/exchanges`, { authorization: `Bearer ${token}` }).then((r) => r.status);
    expect(await exchanges(before)).toBe(200);
    expect(gateway.reload(configOf({ a: { url: a.url } }, admin(after))).needsRestart).toEqual([]);
    expect(await exchanges(before)).toBe(401);
    expect(await exchanges(after)).toBe(200);
  });
});

describe('POST /admin/reload', () => {
  const TOKEN = 'admin-token-0123456789';

  async function withFile() {
    const [a, b] = [await peer(), await peer()];
    const file = join(mkdtempSync(join(tmpdir(), 'a2a-gw-reload-')), 'gw.yaml');
    const write = (agents: Record<string, unknown>) =>
      writeFileSync(
        file,
        JSON.stringify({ ...baseConfig({ admin: { listen: { host: '127.0.0.1', port: 0 }, token: TOKEN } }), agents }),
      );
    write({ a: { url: a.url } });
    const holder: { gateway?: RunningGateway } = {};
    const reload = serialised(() => reloadFromFile(file, holder.gateway!));
    const { gateway } = await start(
      { a: { url: a.url } },
      { admin: { listen: { host: '127.0.0.1', port: 0 }, token: TOKEN } },
      { reload },
    );
    holder.gateway = track(gateway);
    return { gateway, write, a, b };
  }

  const post = (gateway: RunningGateway, headers: Record<string, string> = {}) =>
    request(`${gateway.adminUrl}/admin/reload`, { method: 'POST', headers });
  const auth = { authorization: `Bearer ${TOKEN}` };

  it('needs the admin token', async () => {
    const { gateway } = await withFile();
    const res = await post(gateway);
    expect(res.statusCode).toBe(401);
    expect(await res.body.json()).toMatchObject({ error: { status: 'UNAUTHENTICATED' } });
  });

  it('answers 200 with the report when the file is valid, and the new agent answers', async () => {
    const { gateway, write, a, b } = await withFile();
    write({ a: { url: a.url }, b: { url: b.url } });
    const res = await post(gateway, auth);
    expect(res.statusCode).toBe(200);
    expect(await res.body.json()).toMatchObject({ ok: true, added: ['b'], agents: ['a', 'b'], errors: [] });
    expect((await send(`${gateway.url}/agents/b/a2a/jsonrpc`)).status).toBe(200);
  });

  it('answers 422 with the key-path errors when it is not, and the old config serves', async () => {
    const { gateway, write, a } = await withFile();
    write({ a: { url: a.url, timeouts: { connect: 'soon' } } });
    const res = await post(gateway, auth);
    expect(res.statusCode).toBe(422);
    const body = (await res.body.json()) as { ok: boolean; errors: string[] };
    expect(body.ok).toBe(false);
    expect(body.errors.length).toBe(1);
    expect(body.errors[0]).toMatch(/^agents\.a\.timeouts\.connect: /);
    expect((await send(`${gateway.url}/agents/a/a2a/jsonrpc`)).status).toBe(200);
  });

  it('answers 501 on a gateway started without a reload hook', async () => {
    const a = await peer();
    const { gateway } = await start({ a: { url: a.url } });
    track(gateway);
    const res = await post(gateway);
    expect(res.statusCode).toBe(501);
    expect(await res.body.json()).toMatchObject({ error: { status: 'UNIMPLEMENTED' } });
  });
});
