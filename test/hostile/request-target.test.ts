/**
 * Request targets that are not origin-form (issue #29, item 6; RFC 9112 §3.2): an absolute-form
 * target is routed by its own authority and path, its Host ignored (§3.2.2), as nginx and Envoy
 * do; any other form is 400; CONNECT (§3.2.3) is 405 and the connection closed — the gateway is
 * no tunnel. Raw sockets: no client library tidies the target.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPeerV1, type PeerV1 } from '../peers/peer-v1.js';
import { startTestGateway } from '../support/gateway.js';
import { rawRequest } from '../support/raw-http.js';
import type { RunningGateway } from '../../src/gateway/gateway.js';

let peer: PeerV1;
let gateway: RunningGateway;

beforeAll(async () => {
  peer = await startPeerV1();
  gateway = await startTestGateway({ a: { url: peer.url, hosts: ['agent-a.example'] } });
});
afterAll(async () => {
  await gateway?.close();
  await peer?.close();
});

const CARD = '/.well-known/agent-card.json';

describe('request targets', () => {
  it('routes an absolute-form target by its path, whatever the Host header says', async () => {
    const res = await rawRequest(
      gateway.url,
      `GET http://gateway.example${'/agents/a' + CARD} HTTP/1.1\r\nHost: elsewhere.example\r\nConnection: close\r\n\r\n`,
    );
    expect(res.status).toBe(200);
    expect(res.body).toContain('"name"');
  });

  it("routes an absolute-form target by its authority when that is an agent's host", async () => {
    const res = await rawRequest(
      gateway.url,
      `GET http://agent-a.example${CARD} HTTP/1.1\r\nHost: gateway.example\r\nConnection: close\r\n\r\n`,
    );
    expect(res.status).toBe(200);
    expect(res.body).toContain('http://agent-a.example');
  });

  it('answers 400 to an asterisk-form or otherwise unusable target', async () => {
    for (const target of ['*', 'agents/a/', 'ftp://x/agents/a/']) {
      const res = await rawRequest(gateway.url, `GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
      expect(res.status, target).toBe(400);
    }
  });

  it('answers CONNECT with 405 and closes: nothing is tunneled', async () => {
    const port = new URL(peer.url).port;
    const res = await rawRequest(
      gateway.url,
      `CONNECT 127.0.0.1:${port} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n`,
    );
    expect(res.status).toBe(405);
    expect(res.head.toLowerCase()).toContain('connection: close');
    expect(res.body).not.toContain('HTTP/1.1 200');
  });
});
