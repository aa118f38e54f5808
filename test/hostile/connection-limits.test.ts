/**
 * The listener's own bounds: the whole request must arrive within `limits.requestTimeout` (a body
 * dribbled a byte at a time, never silent long enough for `limits.bodyIdle`, is still cut off),
 * no more than `limits.connections` connections are open at once, a request head over
 * `limits.headerBytes` is refused, and an idle keep-alive connection closes after
 * `limits.keepAliveTimeout`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scriptedUpstream } from '../support/scripted-upstream.js';
import { startTestGateway } from '../support/gateway.js';
import { openSocket, readAnswer } from '../support/raw-http.js';
import type { RunningGateway } from '../../src/gateway/gateway.js';

let upstream: Awaited<ReturnType<typeof scriptedUpstream>>;
let gateway: RunningGateway;

beforeAll(async () => {
  upstream = await scriptedUpstream((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  gateway = await startTestGateway(
    { a: { url: upstream.url } },
    {
      limits: {
        requestTimeout: '1s',
        bodyIdle: '30s',
        headersTimeout: '1s',
        connections: 20,
        headerBytes: '4KiB',
        keepAliveTimeout: '300ms',
      },
    },
  );
});
afterAll(async () => {
  await gateway.close();
  await upstream.close();
});

describe('listener limits', () => {
  it('cuts off a body dribbled a byte at a time once the whole request takes longer than requestTimeout', async () => {
    const socket = await openSocket(gateway.url);
    const done = readAnswer(socket);
    socket.write(`POST /agents/a/ HTTP/1.1\r\nhost: gw\r\ncontent-length: 1000\r\n\r\n`);
    const drip = setInterval(() => socket.writable && socket.write('x'), 100);
    const res = await done;
    clearInterval(drip);
    // Node's request timeout fires; its clientError is answered in the REST shape (client-limits.ts).
    expect(res.status).toBe(408);
    expect(JSON.parse(res.body)).toMatchObject({ error: { code: 408, details: [{ reason: 'REQUEST_TIMEOUT' }] } });
  });

  it('closes connections beyond limits.connections as they arrive', async () => {
    const held = await Promise.all(Array.from({ length: 20 }, () => openSocket(gateway.url)));
    const extra = await openSocket(gateway.url);
    const closed = await new Promise<boolean>((resolve) => {
      extra.on('close', () => resolve(true));
      setTimeout(() => resolve(false), 5000).unref();
    });
    expect(closed).toBe(true);
    for (const s of held) s.destroy();
    // Once the server has seen them close, connections are accepted again.
    let answered = false;
    for (let i = 0; i < 100 && !answered; i++) {
      answered = await fetch(`${gateway.url}/healthz`).then(
        (r) => r.ok,
        () => false,
      );
      if (!answered) await new Promise((r) => setTimeout(r, 20));
    }
    expect(answered).toBe(true);
  });

  it('refuses a request head larger than limits.headerBytes with 431 in the REST shape', async () => {
    const socket = await openSocket(gateway.url);
    const done = readAnswer(socket);
    socket.write(`GET /agents/a/ HTTP/1.1\r\nhost: gw\r\nx-big: ${'b'.repeat(8 * 1024)}\r\n\r\n`);
    const res = await done;
    expect(res.status).toBe(431);
    expect(JSON.parse(res.body)).toMatchObject({ error: { details: [{ reason: 'HEADERS_TOO_LARGE' }] } });
  });

  it('closes an idle keep-alive connection after limits.keepAliveTimeout', async () => {
    const socket = await openSocket(gateway.url);
    const done = readAnswer(socket);
    socket.write('GET /healthz HTTP/1.1\r\nhost: gw\r\n\r\n'); // keep-alive: the server decides when to close
    const res = await done; // resolves only once the gateway closes the idle connection
    expect(res.status).toBe(200);
  });
});
