/**
 * A refusal answered while the client is still sending its body ends the connection (the rest is
 * never read), whatever refused it; a refusal of a request read whole keeps the connection.
 * One mechanism in the pipeline's last-resort answer (src/bindings/http/pipeline.ts `answerUnexpected`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../src/gateway/gateway.js';
import { startTestGateway } from '../support/gateway.js';
import { openSocket, readAnswer } from '../support/raw-http.js';

let gateway: RunningGateway;

beforeAll(async () => {
  gateway = await startTestGateway(
    { a: { url: 'http://127.0.0.1:1' } }, // never reached: every request here is refused first
    { auth: { apiKeys: { planner: { key: 'planner-key-0123456789' } } } },
  );
});
afterAll(() => gateway.close());

describe('a refusal of a body still arriving', () => {
  it('is answered in the caller protocol and closes the connection', async () => {
    const start = '{"jsonrpc":"2.0","id":5,"method":"SendMessage","params":{"message":{"parts":[{"text":"';
    const socket = await openSocket(gateway.url);
    const answer = readAnswer(socket);
    socket.write(
      'POST /agents/a/ HTTP/1.1\r\nHost: gw\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n',
    );
    socket.write(start + 'x'.repeat(80 * 1024)); // past the 64 KiB read ahead; the rest never comes
    const { status, head, body } = await answer; // resolves only because the gateway closes
    expect(status).toBe(401);
    expect(head.toLowerCase()).toContain('connection: close');
    expect(JSON.parse(body)).toMatchObject({ jsonrpc: '2.0', id: 5, error: { code: -32000 } });
  });

  it('but a refused request that was read whole keeps its connection', async () => {
    const res = await fetch(`${gateway.url}/agents/a/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'SendMessage', params: {} }),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('connection')).toBe('keep-alive');
    await res.text();
  });
});
