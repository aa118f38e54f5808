/**
 * The request head is checked before anything is forwarded: methods A2A has no use for (TRACE
 * would echo the injected credentials), a second Host, and a Host that is not a host (it ends up
 * in rewritten card URLs). Raw sockets, so the head is sent exactly as written.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from '../support/raw-http.js';
import { scriptedUpstream } from '../support/scripted-upstream.js';
import { startTestGateway } from '../support/gateway.js';
import type { RunningGateway } from '../../src/gateway/gateway.js';

let forwarded = 0;
let upstream: Awaited<ReturnType<typeof scriptedUpstream>>;
let gateway: RunningGateway;

beforeAll(async () => {
  upstream = await scriptedUpstream((req, res) => {
    if (!req.url!.includes('/.well-known/')) forwarded++;
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  gateway = await startTestGateway({ billing: { url: upstream.url, headers: { Authorization: 'Bearer SVC' } } });
});
afterAll(async () => {
  await gateway.close();
  await upstream.close();
});

/** A request head (its lines, each ending in CRLF), sent as written on a connection of its own. */
const raw = (head: string) => rawRequest(gateway.url, `${head}connection: close\r\n\r\n`);

describe('the request head', () => {
  // Methods Node's parser does not know at all (e.g. FOO) it answers 400 itself.
  it.each(['TRACE', 'PROPFIND', 'LINK'])('%s is answered 405 with Allow and never forwarded', async (method) => {
    const before = forwarded;
    const res = await raw(`${method} /agents/billing/x HTTP/1.1\r\nhost: gw\r\n`);
    expect(res.status).toBe(405);
    expect(res.head.toLowerCase()).toContain('allow: get, head, post, put, patch, delete, options');
    expect(JSON.parse(res.body)).toMatchObject({ error: { code: 405, details: [{ reason: 'METHOD_NOT_ALLOWED' }] } });
    expect(forwarded).toBe(before);
  });

  it('refuses a second Host header', async () => {
    const before = forwarded;
    const res = await raw('GET /agents/billing/x HTTP/1.1\r\nhost: gw\r\nhost: evil.example\r\n');
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body).error.message).toMatch(/more than one Host/);
    expect(forwarded).toBe(before);
  });

  it.each(['"><script>x</script>', 'a b', 'gw/path', 'gw:port'])('refuses Host %s on every route', async (host) => {
    for (const path of ['/agents/billing/x', '/agents/billing/.well-known/agent-card.json', '/agents']) {
      const res = await raw(`GET ${path} HTTP/1.1\r\nhost: ${host}\r\n`);
      expect(res.status).toBe(400);
    }
  });

  it('accepts host names, IPv4 and IPv6 literals with ports', async () => {
    for (const host of ['gw', 'gw.example.com:8443', '127.0.0.1:80', '[::1]:8080', 'xn--bcher-kva.example']) {
      const res = await raw(`GET /agents/billing/x HTTP/1.1\r\nhost: ${host}\r\n`);
      expect(res.status).toBe(200);
    }
  });
});
