/**
 * The public catalog as an AI Catalog (issue #28 item 4): `GET /.well-known/ai-catalog.json` on
 * the traffic listener lists the agents the caller may list — the same ones, in the same order, as
 * `GET /agents` — each pointing at its card at the gateway, with the name, description and version
 * of the card as served; never an agent's own address, never an agent hidden from the caller.
 * Field names: src/control/ai-catalog.ts (the AI Catalog draft, Agent-Card/ai-catalog).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPeerV1 } from '../peers/peer-v1.js';
import type { Peer } from '../peers/peer-common.js';
import { startTestGateway } from '../support/gateway.js';
import { deadUrl } from '../support/scripted-upstream.js';
import type { RunningGateway } from '../../src/gateway/gateway.js';

const PATH = '/.well-known/ai-catalog.json';
const MEDIA_TYPE = 'application/ai-catalog+json';
const PLANNER = { 'x-api-key': 'planner-key-0123456789' };
const OPS = { authorization: 'Bearer ops-bot-key-0123456789' };

interface Entry {
  identifier: string;
  type: string;
  url: string;
  displayName?: string;
  description?: string;
  version?: string;
}
interface Catalog {
  specVersion: string;
  host?: Record<string, string>;
  entries: Entry[];
}

let peer: Peer;
let open: RunningGateway;
let guarded: RunningGateway;

async function until(check: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

const get = (url: string, headers: Record<string, string> = {}, method = 'GET') =>
  fetch(url, { method, headers, signal: AbortSignal.timeout(10_000) });

async function catalogOf(gateway: RunningGateway, headers: Record<string, string> = {}): Promise<Catalog> {
  const res = await get(`${gateway.url}${PATH}`, headers);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe(MEDIA_TYPE);
  return (await res.json()) as Catalog;
}

async function listedOf(gateway: RunningGateway, headers: Record<string, string> = {}): Promise<string[]> {
  const res = await get(`${gateway.url}/agents`, headers);
  expect(res.status).toBe(200);
  return ((await res.json()) as { agents: Array<{ name: string }> }).agents.map((a) => a.name);
}

/** The agent names a catalog lists: the last segment of each identifier. */
const namesIn = (catalog: Catalog) => catalog.entries.map((e) => e.identifier.slice(e.identifier.lastIndexOf('/') + 1));

beforeAll(async () => {
  peer = await startPeerV1({ stepMs: 10 });
  const dead = await deadUrl();
  open = await startTestGateway(
    { a: { url: peer.url }, down: { url: dead }, hosted: { url: peer.url, hosts: ['hosted.example'] } },
    { catalog: { host: { displayName: 'Example fleet', identifier: 'example.com' } } },
  );
  guarded = await startTestGateway(
    {
      teamA: { url: peer.url, access: { allow: ['team-a'] } },
      opsOnly: { url: peer.url, access: { allow: ['ops'] } },
      anyone: { url: peer.url },
      teamDown: { url: dead, access: { allow: ['team-a'] } },
    },
    {
      publicUrl: 'https://gw.example.com',
      auth: {
        apiKeys: {
          planner: { key: PLANNER['x-api-key'], groups: ['team-a'] },
          'ops-bot': { key: 'ops-bot-key-0123456789', groups: ['ops'] },
        },
      },
    },
  );
  await until(() => open.registry.pending().join() === 'down' && guarded.registry.pending().join() === 'teamDown');
});

afterAll(async () => {
  await Promise.all([open?.close(), guarded?.close()]);
  await peer?.close();
});

describe('the AI Catalog without access control', () => {
  it('lists every agent, in /agents order, each at its card URL at the gateway', async () => {
    const catalog = await catalogOf(open);
    expect(catalog.specVersion).toBe('0.9');
    expect(namesIn(catalog)).toEqual(await listedOf(open));
    expect(namesIn(catalog)).toEqual(['a', 'down', 'hosted']);
    for (const entry of catalog.entries) {
      expect(entry.type).toBe('application/a2a-agent-card+json');
      expect(entry.url).toBe(`${entry.identifier}/.well-known/agent-card.json`);
      expect(entry.identifier.startsWith(`${open.url}/agents/`)).toBe(true);
    }
  });

  it("copies name, description and version from the card its URL serves, never the agent's address", async () => {
    const catalog = await catalogOf(open);
    const entry = catalog.entries[0]!;
    const card = (await (await get(entry.url, { 'a2a-version': '1.0' })).json()) as Record<string, string>;
    expect(entry).toEqual({
      identifier: `${open.url}/agents/a`,
      type: 'application/a2a-agent-card+json',
      url: `${open.url}/agents/a/.well-known/agent-card.json`,
      displayName: card['name'],
      description: card['description'],
      version: card['version'],
    });
    expect(JSON.stringify(catalog)).not.toContain(new URL(peer.url).host);
  });

  it('lists an agent whose card cannot be had with its card URL alone', async () => {
    const down = (await catalogOf(open)).entries[1]!;
    expect(down).toEqual({
      identifier: `${open.url}/agents/down`,
      type: 'application/a2a-agent-card+json',
      url: `${open.url}/agents/down/.well-known/agent-card.json`,
    });
    expect((await get(down.url)).status).not.toBe(200);
  });

  it('points an agent routed by host at its path at the gateway, where it is served too', async () => {
    const hosted = (await catalogOf(open)).entries[2]!;
    expect(hosted.url).toBe(`${open.url}/agents/hosted/.well-known/agent-card.json`);
    expect((await get(hosted.url)).status).toBe(200);
  });

  it('names the host of catalog.host, and is not marked private', async () => {
    expect((await catalogOf(open)).host).toEqual({ displayName: 'Example fleet', identifier: 'example.com' });
    expect((await catalogOf(guarded)).host).toBeUndefined();
    const res = await get(`${open.url}${PATH}`);
    expect(res.headers.get('cache-control')).toBeNull();
    expect(res.headers.get('vary')).toBeNull();
  });

  it('answers HEAD with the headers and no body, and other methods with the generic 404', async () => {
    const head = await get(`${open.url}${PATH}`, {}, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe(MEDIA_TYPE);
    expect(await head.text()).toBe('');
    const post = await get(`${open.url}${PATH}`, {}, 'POST');
    expect(post.status).toBe(404);
    expect(((await post.json()) as { error: unknown }).error).toMatchObject({ code: 404, status: 'NOT_FOUND' });
  });

  it('is not served on the admin listener (its full catalog is /agents there)', async () => {
    const res = await get(`${open.adminUrl}${PATH}`);
    expect(res.status).toBe(404);
    await res.arrayBuffer();
  });
});

describe('the AI Catalog and /agents with access control', () => {
  it('show each caller the agents it may use, and only those, at the public URL', async () => {
    const planner = await catalogOf(guarded, PLANNER);
    expect(namesIn(planner)).toEqual(['teamA', 'anyone', 'teamDown']);
    expect(await listedOf(guarded, PLANNER)).toEqual(['teamA', 'anyone', 'teamDown']);
    expect(planner.entries[0]!.url).toBe('https://gw.example.com/agents/teamA/.well-known/agent-card.json');
    const ops = await catalogOf(guarded, OPS);
    expect(namesIn(ops)).toEqual(['opsOnly', 'anyone']);
    expect(await listedOf(guarded, OPS)).toEqual(['opsOnly', 'anyone']);
  });

  it('never name an agent hidden from the caller', async () => {
    for (const path of [PATH, '/agents']) {
      expect(await (await get(`${guarded.url}${path}`, PLANNER)).text()).not.toContain('opsOnly');
      expect(await (await get(`${guarded.url}${path}`, OPS)).text()).not.toMatch(/teamA|teamDown/);
    }
  });

  it('list nothing to an anonymous caller or a wrong key', async () => {
    expect(await catalogOf(guarded)).toEqual({ specVersion: '0.9', entries: [] });
    expect(await catalogOf(guarded, { 'x-api-key': 'not-a-key-0123456789' })).toEqual({
      specVersion: '0.9',
      entries: [],
    });
    expect(await listedOf(guarded)).toEqual([]);
  });

  it('are private to the caller and vary with its credentials, GET and HEAD alike', async () => {
    for (const [path, method] of [
      [PATH, 'GET'],
      [PATH, 'HEAD'],
      ['/agents', 'GET'],
      ['/agents/', 'GET'],
    ] as const) {
      const res = await get(`${guarded.url}${path}`, PLANNER, method);
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control'), `${method} ${path}`).toBe('private');
      expect(res.headers.get('vary'), `${method} ${path}`).toBe('authorization, x-api-key');
      await res.arrayBuffer();
    }
  });
});
