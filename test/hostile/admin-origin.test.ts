/**
 * The admin listener answers only to its own names and takes state changes only from itself
 * (issue #29, item 6): a DNS-rebinding page sends its own hostname (403), a cross-origin page's
 * POST /admin/reload carries its Origin or Sec-Fetch-Site (403). IP literals, `localhost` and
 * `admin.hosts` are its names. A non-loopback admin listener without a token is warned about.
 * Raw sockets, so the Host and Origin are exactly what a browser would send.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { Writable } from 'node:stream';
import { startTestGateway } from '../support/gateway.js';
import { rawRequest } from '../support/raw-http.js';
import type { RunningGateway } from '../../src/gateway/gateway.js';

let gateway: RunningGateway;
let reloads = 0;

beforeAll(async () => {
  gateway = await startTestGateway(
    { a: { url: 'http://127.0.0.1:9' } },
    { admin: { listen: { host: '127.0.0.1', port: 0 }, hosts: ['gw-admin.internal'] } },
  );
});
afterAll(() => gateway?.close());

const port = () => new URL(gateway.adminUrl).port;
const get = (host: string, path = '/agents') =>
  rawRequest(gateway.adminUrl, `GET ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
const post = (headers: string) =>
  rawRequest(
    gateway.adminUrl,
    `POST /admin/reload HTTP/1.1\r\nHost: 127.0.0.1:${port()}\r\n${headers}Content-Length: 0\r\nConnection: close\r\n\r\n`,
  );

describe('the admin listener, asked under another name', () => {
  it('refuses a host name that is not its own (DNS rebinding): 403, and shows nothing', async () => {
    const res = await get(`rebind.attacker.example:${port()}`);
    expect(res.status).toBe(403);
    expect(res.body).not.toContain('agents');
  });

  it('answers an IP literal, localhost and a name in admin.hosts', async () => {
    for (const host of [`127.0.0.1:${port()}`, `localhost:${port()}`, 'gw-admin.internal', `[::1]:${port()}`]) {
      expect((await get(host)).status, host).toBe(200);
    }
  });
});

describe('the admin listener with a token', () => {
  it('answers any host name (the token guards it), but still refuses a cross-origin state change', async () => {
    const guarded = await startTestGateway(
      { a: { url: 'http://127.0.0.1:9' } },
      { admin: { listen: { host: '127.0.0.1', port: 0 }, token: 'admin-token-0123456789' } },
    );
    try {
      const auth = 'Authorization: Bearer admin-token-0123456789\r\n';
      const at = `127.0.0.1:${new URL(guarded.adminUrl).port}`;
      const named = await rawRequest(
        guarded.adminUrl,
        `GET /agents HTTP/1.1\r\nHost: a2a-gateway.ops.svc:9464\r\n${auth}Connection: close\r\n\r\n`,
      );
      expect(named.status).toBe(200);
      const cross = await rawRequest(
        guarded.adminUrl,
        `POST /admin/reload HTTP/1.1\r\nHost: ${at}\r\n${auth}Origin: http://attacker.example\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`,
      );
      expect(cross.status).toBe(403);
    } finally {
      await guarded.close();
    }
  });
});

describe('state changes on the admin listener', () => {
  it('refuses a POST from another origin, a cross-site fetch and an opaque origin: 403', async () => {
    expect((await post('Origin: http://attacker.example\r\n')).status).toBe(403);
    expect((await post('Sec-Fetch-Site: cross-site\r\n')).status).toBe(403);
    expect((await post('Origin: null\r\n')).status).toBe(403);
  });

  it('takes one from its own origin, or with no Origin (curl): the route answers', async () => {
    // No reload hook in this gateway: the route's own answer (501), past the guard.
    expect((await post(`Origin: http://127.0.0.1:${port()}\r\n`)).status).toBe(501);
    expect((await post('')).status).toBe(501);
    reloads++;
  });
});

describe('an admin listener others can reach', () => {
  it('is warned about at start-up when it has no token', async () => {
    const lines: string[] = [];
    const sink = new Writable({ write: (chunk, _e, done) => (lines.push(String(chunk)), done()) });
    const open = await startTestGateway(
      { a: { url: 'http://127.0.0.1:9' } },
      { admin: { listen: { host: '0.0.0.0', port: 0 } } },
      [],
      pino({ level: 'warn' }, sink),
    );
    await open.close();
    expect(lines.join('')).toContain('without admin.token');
    expect(reloads).toBe(1);
  });
});
