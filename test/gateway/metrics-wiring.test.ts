/** /metrics is served on the admin listener (at `metrics.path`), never on the traffic listener,
 * and not at all when metrics are off. */
import { describe, expect, it } from 'vitest';
import { startPeerV1 } from '../peers/peer-v1.js';
import { startTestGateway } from '../support/gateway.js';

const ask = (url: string) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'why?' }] } },
    }),
  });

describe('metrics wiring', () => {
  it('counts a message exchange on the traffic listener and serves it on the admin listener', async () => {
    const peer = await startPeerV1();
    const gateway = await startTestGateway({ a: { url: peer.url } });
    try {
      await (await ask(`${gateway.url}/agents/a/a2a/jsonrpc`)).text();
      expect(gateway.adminUrl).not.toBe(gateway.url);
      expect(gateway.metricsUrl).toBe(`${gateway.adminUrl}/metrics`);
      const res = await fetch(gateway.metricsUrl!);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      expect(await res.text()).toMatch(/a2a_requests_total\{[^}]*agent="a"[^}]*kind="message"[^}]*\} 1/);
      expect((await fetch(`${gateway.url}/metrics`)).status).toBe(404);
    } finally {
      await gateway.close();
      await peer.close();
    }
  });

  it('serves them at metrics.path', async () => {
    const peer = await startPeerV1();
    const gateway = await startTestGateway({ a: { url: peer.url } }, { metrics: { path: '/internal/metrics' } });
    try {
      expect(gateway.metricsUrl).toBe(`${gateway.adminUrl}/internal/metrics`);
      expect(await (await fetch(gateway.metricsUrl!)).text()).toContain('# TYPE a2a_requests_total counter');
      expect((await fetch(`${gateway.adminUrl}/metrics`)).status).toBe(404);
      expect((await fetch(`${gateway.url}/internal/metrics`)).status).toBe(404);
    } finally {
      await gateway.close();
      await peer.close();
    }
  });

  it('still accepts the old metrics.listen, as admin.listen', async () => {
    const peer = await startPeerV1();
    const gateway = await startTestGateway(
      { a: { url: peer.url } },
      { admin: undefined, metrics: { listen: { host: '127.0.0.1', port: 0 } } },
    );
    try {
      expect(gateway.metricsUrl).toBe(`${gateway.adminUrl}/metrics`);
      expect((await fetch(gateway.metricsUrl!)).status).toBe(200);
    } finally {
      await gateway.close();
      await peer.close();
    }
  });

  it('serves no metrics when they are off, on either listener', async () => {
    const peer = await startPeerV1();
    const gateway = await startTestGateway({ a: { url: peer.url } }, { metrics: { enabled: false } });
    try {
      expect(gateway.metricsUrl).toBeUndefined();
      expect((await fetch(`${gateway.adminUrl}/metrics`)).status).toBe(404);
      expect((await fetch(`${gateway.url}/metrics`)).status).toBe(404);
    } finally {
      await gateway.close();
      await peer.close();
    }
  });
});
