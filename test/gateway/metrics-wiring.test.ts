/** /metrics is served on the main listener by default, or only on its own listener when
 * `metrics.listen` is set, or not at all when metrics are off. */
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
  it('counts a message exchange on the main listener', async () => {
    const peer = await startPeerV1();
    const gateway = await startTestGateway({ a: { url: peer.url } });
    try {
      await (await ask(`${gateway.url}/agents/a/a2a/jsonrpc`)).text();
      expect(gateway.metricsUrl).toBe(`${gateway.url}/metrics`);
      const text = await (await fetch(gateway.metricsUrl!)).text();
      expect(text).toMatch(/a2a_requests_total\{[^}]*agent="a"[^}]*kind="message"[^}]*\} 1/);
    } finally {
      await gateway.close();
      await peer.close();
    }
  });

  it('moves /metrics to its own listener when asked', async () => {
    const peer = await startPeerV1();
    const gateway = await startTestGateway(
      { a: { url: peer.url } },
      { metrics: { listen: { host: '127.0.0.1', port: 0 } } },
    );
    try {
      expect((await fetch(`${gateway.url}/metrics`)).status).toBe(404);
      expect(gateway.metricsUrl).not.toContain(gateway.url);
      expect(await (await fetch(gateway.metricsUrl!)).text()).toContain('# TYPE a2a_requests_total counter');
    } finally {
      await gateway.close();
      await peer.close();
    }
  });

  it('serves no metrics when they are off', async () => {
    const peer = await startPeerV1();
    const gateway = await startTestGateway({ a: { url: peer.url } }, { metrics: { enabled: false } });
    try {
      expect(gateway.metricsUrl).toBeUndefined();
      expect((await fetch(`${gateway.url}/metrics`)).status).toBe(404);
    } finally {
      await gateway.close();
      await peer.close();
    }
  });
});
