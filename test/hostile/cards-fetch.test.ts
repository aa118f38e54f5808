/**
 * Agent cards from agents that misbehave or are attacked through the gateway (issue #12 items 4
 * and 5): a card that is too large, gzip-encoded, redirected; callers' credentials; a flood of
 * Host values; a busy `GET /agents`. Real sockets against a scripted upstream.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { gzipSync } from 'node:zlib';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { scriptedUpstream } from '../support/scripted-upstream.js';
import { startTestGateway } from '../support/gateway.js';
import type { RunningGateway } from '../../src/gateway/gateway.js';
import { renderCount } from '../../src/cards/serve.js';

const CARD_PATH = '/.well-known/agent-card.json';
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

function cardOf(base: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'scripted',
    description: 'a scripted agent',
    supportedInterfaces: [{ url: `${base}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    ...extra,
  };
}

async function upstreamWith(
  handler: (req: { url: string; headers: IncomingHttpHeaders }, res: ServerResponse, base: string) => void,
) {
  let base = '';
  const up = await scriptedUpstream((req, res) => handler({ url: req.url!, headers: req.headers }, res, base));
  base = up.url;
  cleanups.push(() => up.close());
  return up;
}

async function gatewayFor(
  agents: Record<string, { url: string; [k: string]: unknown }>,
  extra: Record<string, unknown> = {},
) {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  const gateway = await startTestGateway(agents, extra, [], pino({ level: 'warn' }, sink));
  cleanups.push(() => gateway.close());
  return { gateway, lines };
}

async function get(gateway: RunningGateway, path: string, headers: Record<string, string> = {}, base = gateway.url) {
  const res = await request(`${base}${path}`, { headers });
  const text = await res.body.text();
  return { status: res.statusCode, headers: res.headers, text };
}

async function until(check: () => boolean, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** The full catalog (admin listener): reachability and card errors included. */
async function catalog(gateway: RunningGateway): Promise<Array<Record<string, any>>> {
  const res = await get(gateway, '/agents', {}, gateway.adminUrl);
  return (JSON.parse(res.text) as { agents: Array<Record<string, any>> }).agents;
}

describe('a card larger than cards.maxBytes', () => {
  // Writes `total` bytes of a JSON string in 16 KiB chunks, honouring backpressure, and records
  // how much it got out before the gateway closed the connection.
  function bigCard(total: number, declareLength: boolean) {
    const state = { written: 0, closedEarly: false, requests: 0 };
    const handler = (req: { url: string }, res: ServerResponse) => {
      if (!req.url.includes('/.well-known/')) return void res.writeHead(404).end();
      state.requests++;
      res.writeHead(200, { 'content-type': 'application/json', ...(declareLength ? { 'content-length': total } : {}) });
      const chunk = Buffer.alloc(16 * 1024, 0x61);
      res.on('close', () => {
        if (!res.writableFinished) state.closedEarly = true;
      });
      const pump = () => {
        while (state.written < total && !res.destroyed) {
          const ok = res.write(chunk);
          state.written += chunk.length;
          if (!ok) return void res.once('drain', pump);
        }
        if (!res.destroyed) res.end();
      };
      pump();
    };
    return { state, handler };
  }

  it.each([
    ['chunked', false],
    ['with Content-Length', true],
  ])('(%s) is refused: 502 in protocol, /agents says why, the fetch is aborted early', async (_label, declared) => {
    const total = 64 * 1024 * 1024;
    const { state, handler } = bigCard(total, declared);
    const up = await upstreamWith((req, res) => handler(req, res));
    const { gateway, lines } = await gatewayFor(
      { big: { url: up.url } },
      { cards: { retry: '200ms', maxBytes: '256KiB' } },
    );

    const res = await get(gateway, `/agents/big${CARD_PATH}`);
    expect(res.status).toBe(502);
    const body = JSON.parse(res.text);
    expect(body.error.details[0]).toMatchObject({ reason: 'UPSTREAM_INVALID', metadata: { cause: 'CARD_TOO_LARGE' } });
    expect(body.error.message).toMatch(/larger than cards\.maxBytes \(262144 bytes\)/);

    await until(() => state.closedEarly);
    // Never the whole card; at most the cap plus what sat in socket buffers when it was cut.
    expect(state.written).toBeLessThan(total / 4);

    const [agent] = await catalog(gateway);
    expect(agent).toMatchObject({ name: 'big', reachable: false });
    expect(agent!['cardError']).toMatch(/larger than cards\.maxBytes/);
    // Readiness is the gateway's own (issue #30): one refused card does not pull it out; the admin
    // /readyz names the agent.
    expect((await get(gateway, '/readyz')).status).toBe(200);
    const admin = await get(gateway, '/readyz', {}, gateway.adminUrl);
    expect(JSON.parse(admin.text)).toMatchObject({ status: 'ready', cardsUnavailable: ['big'] });
    const refused = lines.filter((l) => l['msg'] === 'agent card refused');
    expect(refused.length).toBe(1); // once, however often it is retried
    expect(refused[0]).toMatchObject({ agent: 'big', reason: 'CARD_TOO_LARGE' });
  });
});

describe('an encoded card', () => {
  it('is asked for as identity, and decoded when the agent gzips anyway', async () => {
    const seen: string[] = [];
    const up = await upstreamWith((req, res, base) => {
      seen.push(String(req.headers['accept-encoding']));
      const body = gzipSync(JSON.stringify(cardOf(base)));
      res.writeHead(200, {
        'content-type': 'application/json',
        'content-encoding': 'gzip',
        'content-length': body.length,
      });
      res.end(body);
    });
    const { gateway } = await gatewayFor({ zipped: { url: up.url } });
    const res = await get(gateway, `/agents/zipped${CARD_PATH}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBeUndefined();
    const card = JSON.parse(res.text);
    expect(card.supportedInterfaces[0].url).toBe(`${gateway.url}/agents/zipped/a2a/jsonrpc`);
    expect(seen.every((v) => v === 'identity')).toBe(true);
    await until(() => gateway.registry.ready());
  });

  it('is refused when it decodes past cards.maxBytes (a zip bomb)', async () => {
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024, 0x20)); // ~64 KiB on the wire
    const up = await upstreamWith((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' }).end(bomb);
    });
    const { gateway } = await gatewayFor({ bomb: { url: up.url } });
    const res = await get(gateway, `/agents/bomb${CARD_PATH}`);
    expect(res.status).toBe(502);
    expect(JSON.parse(res.text).error.message).toMatch(/decoded card is larger than cards\.maxBytes/);
  });
});

describe('a card answered with a redirect', () => {
  it('is 502 with the reason, and /agents says so', async () => {
    const up = await upstreamWith((_req, res) => {
      res.writeHead(302, { location: 'http://elsewhere.example/card.json' }).end();
    });
    const { gateway } = await gatewayFor({ moved: { url: up.url } });
    const res = await get(gateway, `/agents/moved${CARD_PATH}`);
    expect(res.status).toBe(502);
    expect(res.headers['location']).toBeUndefined();
    const body = JSON.parse(res.text);
    expect(body.error.details[0]).toMatchObject({ reason: 'UPSTREAM_INVALID', metadata: { cause: 'CARD_REDIRECT' } });
    expect(body.error.message).toContain(
      'the agent answered its card with a redirect to "http://elsewhere.example/card.json"',
    );
    const [agent] = await catalog(gateway);
    expect(agent!['cardError']).toContain('redirect to "http://elsewhere.example/card.json"');
  });
});

describe("callers' credentials", () => {
  it("never reach the card fetch, and no caller gets a card fetched with another caller's", async () => {
    const seen: IncomingHttpHeaders[] = [];
    // An agent whose card needs credentials and says whose it saw.
    const up = await upstreamWith((req, res, base) => {
      seen.push(req.headers);
      const auth = req.headers['authorization'];
      if (!auth) return void res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"who are you"}');
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=60', vary: 'Authorization' });
      res.end(JSON.stringify(cardOf(base, { description: `card for ${auth}` })));
    });
    const { gateway } = await gatewayFor({
      open: { url: up.url },
      svc: { url: up.url, headers: { Authorization: 'Bearer GATEWAY' } },
    });
    const alice = { authorization: 'Bearer ALICE', cookie: 'session=alice', 'x-api-key': 'alice-key' };
    const bob = { authorization: 'Bearer BOB' };

    const a = await get(gateway, `/agents/open${CARD_PATH}`, alice);
    const b = await get(gateway, `/agents/open${CARD_PATH}`, bob);
    expect(a.text).not.toContain('ALICE');
    expect(b.text).not.toMatch(/ALICE|BOB/);
    expect(b.status).toBe(401); // the card the gateway itself may see: none

    const before = seen.length;
    const sa = await get(gateway, `/agents/svc${CARD_PATH}`, alice);
    const sb = await get(gateway, `/agents/svc${CARD_PATH}`, bob);
    expect(JSON.parse(sa.text).description).toBe('card for Bearer GATEWAY');
    expect(JSON.parse(sb.text).description).toBe('card for Bearer GATEWAY');
    // Vary: Authorization does not split the cache: the gateway always sent its own.
    expect(seen.length - before).toBeLessThanOrEqual(1);

    for (const h of seen) {
      expect(JSON.stringify(h)).not.toMatch(/ALICE|BOB|alice/);
      expect(h['cookie']).toBeUndefined();
      expect(h['x-api-key']).toBeUndefined();
    }
  });
});

describe('a flood of Host values', () => {
  it('renders the card once: each body carries its host, ETags stay per rendering', async () => {
    let fetches = 0;
    const skills = Array.from({ length: 200 }, (_, i) => ({
      id: `s${i}`,
      name: `skill ${i}`,
      description: 'x'.repeat(500),
    }));
    const up = await upstreamWith((_req, res, base) => {
      fetches++;
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=60' });
      res.end(JSON.stringify(cardOf(base, { skills })));
    });
    const { gateway } = await gatewayFor({ a: { url: up.url } });
    await until(() => gateway.registry.ready());
    await get(gateway, `/agents/a${CARD_PATH}`, { host: 'warm.example' });
    const rendersBefore = renderCount();
    const fetchesBefore = fetches;
    const etags = new Set<string>();
    for (let i = 0; i < 60; i++) {
      const host = `h${i}.example:8080`;
      const res = await get(gateway, `/agents/a${CARD_PATH}`, { host });
      expect(res.status).toBe(200);
      const card = JSON.parse(res.text);
      expect(card.supportedInterfaces[0].url).toBe(`http://${host}/agents/a/a2a/jsonrpc`);
      expect(card.skills).toHaveLength(200);
      expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(res.text));
      etags.add(String(res.headers['etag']));
    }
    expect(renderCount() - rendersBefore).toBe(0);
    expect(fetches - fetchesBefore).toBe(0);
    expect(etags.size).toBe(60);

    const first = await get(gateway, `/agents/a${CARD_PATH}`, { host: 'h1.example:8080' });
    const again = await get(gateway, `/agents/a${CARD_PATH}`, {
      host: 'h1.example:8080',
      'if-none-match': String(first.headers['etag']),
    });
    expect(again.status).toBe(304);
    const other = await get(gateway, `/agents/a${CARD_PATH}`, {
      host: 'h2.example:8080',
      'if-none-match': String(first.headers['etag']),
    });
    expect(other.status).toBe(200);
  });
});

describe('GET /agents', () => {
  it('under 20 concurrent calls fetches each card once', async () => {
    const fetches = { a: 0, b: 0 };
    const up = await upstreamWith((req, res, base) => {
      const name = req.url.startsWith('/a/') ? 'a' : 'b';
      fetches[name]++;
      // no-cache: every use would revalidate; slow, so the calls overlap.
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-cache' });
        res.end(JSON.stringify(cardOf(`${base}/${name}`)));
      }, 100);
    });
    const { gateway } = await gatewayFor({ a: { url: `${up.url}/a` }, b: { url: `${up.url}/b` } });
    await until(() => gateway.registry.ready());
    await new Promise((r) => setTimeout(r, 1100)); // past the catalog's reuse of the start-up fetch
    fetches.a = fetches.b = 0;

    const all = await Promise.all(Array.from({ length: 20 }, () => catalog(gateway)));
    for (const agents of all) {
      expect(agents.map((a) => a['reachable'])).toEqual([true, true]);
      expect(agents[0]!['card'].supportedInterfaces[0].url).toMatch(/\/agents\/a\/a2a\/jsonrpc$/);
    }
    expect(fetches).toEqual({ a: 1, b: 1 });

    // Right after, the catalog is served from what was just fetched.
    for (let i = 0; i < 5; i++) await catalog(gateway);
    expect(fetches).toEqual({ a: 1, b: 1 });
  });
});

describe('the extended card', () => {
  // A guard, not a fix: it is forwarded with the caller's own headers and never cached.
  it("is fetched per call with that caller's credentials", async () => {
    const seen: Array<string | undefined> = [];
    const up = await upstreamWith((req, res, base) => {
      if (!req.url.endsWith('/extendedAgentCard')) {
        res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=60' });
        return void res.end(JSON.stringify(cardOf(base)));
      }
      seen.push(req.headers['authorization']);
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=60' });
      res.end(JSON.stringify(cardOf(base, { description: `extended for ${req.headers['authorization']}` })));
    });
    const { gateway } = await gatewayFor({ open: { url: up.url } });
    const path = '/agents/open/a2a/rest/extendedAgentCard';
    const a = await get(gateway, path, { 'a2a-version': '1.0', authorization: 'Bearer ALICE' });
    const b = await get(gateway, path, { 'a2a-version': '1.0', authorization: 'Bearer BOB' });
    expect(JSON.parse(a.text).description).toBe('extended for Bearer ALICE');
    expect(JSON.parse(b.text).description).toBe('extended for Bearer BOB');
    expect(seen).toEqual(['Bearer ALICE', 'Bearer BOB']);
  });
});
