/**
 * What a client can send and hold open is bounded (principle 19), and each refusal says why in
 * the caller's protocol: a body over `limits.bodyBytes` (413, declared or streamed), more header
 * fields than `limits.headerCount` (431, never silently truncated), a body that goes quiet
 * (`limits.bodyIdle`, 408), a head that never ends (`limits.headersTimeout`, 408), and more
 * connections from one address than `limits.connectionsPerClient`. Small limits, real sockets.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSocket, readAnswer } from '../support/raw-http.js';
import { scriptedUpstream } from '../support/scripted-upstream.js';
import { startTestGateway } from '../support/gateway.js';
import type { RunningGateway } from '../../src/gateway/gateway.js';

const received: { url: string; bytes: number; complete: boolean }[] = [];
let upstream: Awaited<ReturnType<typeof scriptedUpstream>>;
let gateway: RunningGateway;

beforeAll(async () => {
  upstream = await scriptedUpstream((req, res) => {
    if (req.url!.includes('/.well-known/')) return void res.writeHead(404).end();
    const seen = { url: req.url!, bytes: 0, complete: false };
    received.push(seen);
    req.on('data', (d: Buffer) => (seen.bytes += d.length));
    req.on('end', () => {
      seen.complete = true;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  gateway = await startTestGateway(
    { a: { url: upstream.url }, small: { url: upstream.url, limits: { bodyBytes: '1KiB' } } },
    {
      limits: {
        bodyBytes: '256KiB',
        headerCount: 30,
        bodyIdle: '300ms',
        headersTimeout: '500ms',
        connectionsPerClient: 40,
      },
    },
  );
});
afterAll(async () => {
  await gateway.close();
  await upstream.close();
});

const open = () => openSocket(gateway.url);
const answer = readAnswer;

const rpc = (id: number) => JSON.stringify({ jsonrpc: '2.0', id, method: 'SendMessage', params: { message: {} } });

describe('client limits', () => {
  it('refuses a declared body over the limit with 413 in the caller protocol, before the agent sees it', async () => {
    const socket = await open();
    const done = answer(socket);
    const head = rpc(1).slice(0, -1) + ',"pad":"';
    socket.write(`POST /agents/a/ HTTP/1.1\r\nhost: gw\r\ncontent-type: application/json\r\n`);
    socket.write(`content-length: ${300 * 1024}\r\n\r\n${head}${'x'.repeat(70 * 1024)}`);
    const res = await done;
    expect(res.status).toBe(413);
    expect(res.head.toLowerCase()).toContain('connection: close');
    expect(JSON.parse(res.body)).toMatchObject({ id: 1, error: { data: [{ reason: 'BODY_TOO_LARGE' }] } });
    expect(received.filter((r) => r.url === '/')).toHaveLength(0);
  });

  it('refuses a declared body over the limit at once (413) even when the client then sends nothing', async () => {
    const socket = await open();
    const done = answer(socket);
    socket.write(`POST /agents/a/ HTTP/1.1\r\nhost: gw\r\ncontent-length: ${64 * 1024 * 1024}\r\n\r\n`);
    const res = await done;
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body)).toMatchObject({ error: { details: [{ reason: 'BODY_TOO_LARGE' }] } });
  });

  it('stops a chunked body at the limit: 413, and the agent never gets a complete body', async () => {
    const socket = await open();
    const done = answer(socket);
    socket.write(`POST /agents/a/big HTTP/1.1\r\nhost: gw\r\ntransfer-encoding: chunked\r\n\r\n`);
    const chunk = 'y'.repeat(32 * 1024);
    for (let i = 0; i < 12 && !socket.destroyed; i++) {
      socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
      await new Promise((r) => setTimeout(r, 5));
    }
    const res = await done;
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body)).toMatchObject({ error: { code: 413, details: [{ reason: 'BODY_TOO_LARGE' }] } });
    const seen = received.filter((r) => r.url === '/big');
    expect(seen.every((r) => !r.complete && r.bytes <= 256 * 1024)).toBe(true);
  });

  it('takes an agent override of the body limit', async () => {
    const res = await fetch(`${gateway.url}/agents/small/`, { method: 'POST', body: 'z'.repeat(2048) });
    expect(res.status).toBe(413);
    const ok = await fetch(`${gateway.url}/agents/a/`, { method: 'POST', body: 'z'.repeat(2048) });
    expect(ok.status).toBe(200);
  });

  it('refuses more header fields than allowed with 431 instead of dropping them', async () => {
    const socket = await open();
    const done = answer(socket);
    const extra = Array.from({ length: 40 }, (_, i) => `x-h${i}: ${i}\r\n`).join('');
    socket.write(`GET /agents/a/x HTTP/1.1\r\nhost: gw\r\n${extra}\r\n`);
    const res = await done;
    expect(res.status).toBe(431);
    expect(JSON.parse(res.body)).toMatchObject({ error: { details: [{ reason: 'HEADERS_TOO_LARGE' }] } });
  });

  it('answers a body that goes quiet with 408', async () => {
    const socket = await open();
    const done = answer(socket);
    socket.write(`POST /agents/a/quiet HTTP/1.1\r\nhost: gw\r\ncontent-length: 100\r\n\r\n{"jsonrpc":"2.0","id":9`);
    const res = await done;
    expect(res.status).toBe(408);
    // The body's start says JSON-RPC (its id was cut before it ended).
    expect(JSON.parse(res.body)).toMatchObject({ jsonrpc: '2.0', error: { data: [{ reason: 'REQUEST_TIMEOUT' }] } });
  });

  it('answers a large body that goes quiet after its start was forwarded with 408', async () => {
    const socket = await open();
    const done = answer(socket);
    socket.write(`POST /agents/a/slow HTTP/1.1\r\nhost: gw\r\ncontent-length: ${200 * 1024}\r\n\r\n`);
    socket.write('w'.repeat(100 * 1024)); // past the 64 KiB read-ahead: the start is on its way to the agent
    const res = await done;
    expect(res.status).toBe(408);
    expect(JSON.parse(res.body)).toMatchObject({ error: { code: 408, details: [{ reason: 'REQUEST_TIMEOUT' }] } });
    expect(received.filter((r) => r.url === '/slow').every((r) => !r.complete)).toBe(true);
  });

  it('closes a connection whose head never ends, with 408 in the REST shape', async () => {
    const socket = await open();
    const done = answer(socket);
    socket.write(`GET /agents/a/x HTTP/1.1\r\nhost: gw\r\nx-slow: `);
    const res = await done;
    expect(res.status).toBe(408);
    expect(JSON.parse(res.body)).toMatchObject({ error: { code: 408, details: [{ reason: 'REQUEST_TIMEOUT' }] } });
  });

  it('caps connections per client address, and a probe gets its answer once they are gone', async () => {
    const held = await Promise.all(Array.from({ length: 40 }, open));
    const extra = await open();
    const closed = await new Promise<boolean>((resolve) => {
      extra.on('close', () => resolve(true));
      setTimeout(() => resolve(false), 5000).unref();
    });
    expect(closed).toBe(true);
    for (const s of held) s.destroy();
    await new Promise((r) => setTimeout(r, 50));
    const res = await fetch(`${gateway.url}/healthz`);
    expect(res.status).toBe(200);
  });

  it('counts each refusal by agent and reason in a2a_rejections_total', async () => {
    const metrics = await (await fetch(gateway.metricsUrl!)).text();
    const count = (reason: string) =>
      Number(new RegExp(`a2a_rejections_total\\{agent="a",reason="${reason}"\\} (\\d+)`).exec(metrics)?.[1]);
    expect(count('BODY_TOO_LARGE')).toBeGreaterThanOrEqual(2);
    expect(count('HEADERS_TOO_LARGE')).toBe(1);
    expect(count('REQUEST_TIMEOUT')).toBeGreaterThanOrEqual(2);
    expect(count('AGENT_BUSY')).toBe(0);
  });
});
