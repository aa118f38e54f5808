/** Graceful shutdown: stop accepting, let exchanges in flight finish for the grace period,
 * then end streams cleanly between two events; the admin listener closes once traffic has drained. */
import { describe, expect, it } from 'vitest';
import { request } from 'undici';
import { startPeerV1 } from '../peers/peer-v1.js';
import { startTestGateway } from '../support/gateway.js';

const send = (text: string, method = 'SendMessage') =>
  JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method,
    params: { message: { messageId: `m-${text}`, role: 'ROLE_USER', parts: [{ text }] } },
  });
const headers = { 'content-type': 'application/json', 'a2a-version': '1.0' };

describe('graceful shutdown', () => {
  it('lets a blocking send in flight finish, then stops', async () => {
    const peer = await startPeerV1();
    const gateway = await startTestGateway({ a: { url: peer.url } }, { shutdown: { grace: '10s' } });
    try {
      const pending = request(`${gateway.url}/agents/a/a2a/jsonrpc`, {
        method: 'POST',
        headers,
        body: send('sleep:400 finish me'),
      });
      await new Promise((r) => setTimeout(r, 100)); // the request is now with the agent
      const closed = gateway.close();
      // The admin listener stays up while traffic drains, and says so; it closes after.
      const adminReady = await request(`${gateway.adminUrl}/readyz`);
      expect(adminReady.statusCode).toBe(503);
      expect(await adminReady.body.json()).toEqual({ status: 'draining' });
      const res = await pending;
      const body = (await res.body.json()) as { result: { task: { status: { state: string } } } };
      expect(body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
      await closed;
      await expect(request(`${gateway.url}/healthz`)).rejects.toThrow();
      await expect(request(`${gateway.adminUrl}/healthz`)).rejects.toThrow();
    } finally {
      await peer.close();
    }
  });

  it('ends a stream still open after the grace period between two events', async () => {
    const peer = await startPeerV1({ slowMs: 20_000 });
    const gateway = await startTestGateway({ a: { url: peer.url } }, { shutdown: { grace: '300ms' } });
    try {
      const res = await request(`${gateway.url}/agents/a/a2a/jsonrpc`, {
        method: 'POST',
        headers: { ...headers, accept: 'text/event-stream' },
        body: send('slow stream', 'SendStreamingMessage'),
      });
      const reading = res.body.text();
      await new Promise((r) => setTimeout(r, 100));
      await gateway.close();
      const text = await reading;
      expect(text.length).toBeGreaterThan(0);
      expect(text.endsWith('\n\n')).toBe(true);
      for (const event of text.trim().split('\n\n'))
        expect(() => JSON.parse(event.replace(/^data: /, ''))).not.toThrow();
    } finally {
      await peer.close();
    }
  });

  it('answers a call still unanswered after the grace period with 503 in the caller protocol', async () => {
    const peer = await startPeerV1();
    const gateway = await startTestGateway({ a: { url: peer.url } }, { shutdown: { grace: '300ms' } });
    try {
      const pending = request(`${gateway.url}/agents/a/a2a/jsonrpc`, {
        method: 'POST',
        headers,
        body: send('sleep:20000 never in time'),
      });
      await new Promise((r) => setTimeout(r, 100));
      await gateway.close();
      const res = await pending;
      expect(res.statusCode).toBe(503);
      expect(await res.body.json()).toMatchObject({
        jsonrpc: '2.0',
        id: 1,
        error: { code: -32000, data: [{ reason: 'SHUTTING_DOWN' }] },
      });
    } finally {
      await peer.close();
    }
  });

  it('tells a client the timeout rescue is waiting for which task goes on, when shutdown cuts the wait', async () => {
    const peer = await startPeerV1();
    const gateway = await startTestGateway(
      { a: { url: peer.url, timeoutRescue: { enabled: true, clientTimeout: '30s', strategy: 'poll' } } },
      { shutdown: { grace: '500ms' } },
    );
    try {
      const pending = request(`${gateway.url}/agents/a/a2a/jsonrpc`, {
        method: 'POST',
        headers,
        body: send('sleep:20000 rescued'),
      });
      await new Promise((r) => setTimeout(r, 200)); // the task exists; the gateway is polling it
      await gateway.close();
      const res = await pending;
      expect(res.statusCode).toBe(503);
      const body = (await res.body.json()) as any;
      expect(body).toMatchObject({
        id: 1,
        error: { data: [{ reason: 'SHUTTING_DOWN', metadata: { taskId: expect.any(String) } }] },
      });
      expect(body.error.message).toMatch(/goes on at the agent/);
    } finally {
      await peer.close();
    }
  });
});
