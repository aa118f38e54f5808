/**
 * Errors the gateway produces are in the caller's protocol (a JSON-RPC envelope with the
 * request's id, or the A2A REST error body), and the gateway keeps serving afterwards.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { startTestGateway } from '../support/gateway.js';
import { deadUrl as deadPort, scriptedUpstream } from '../support/scripted-upstream.js';
import type { RunningGateway } from '../../src/gateway/gateway.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function gatewayFor(agents: Record<string, { url: string; [k: string]: unknown }>): Promise<RunningGateway> {
  const gateway = await startTestGateway(agents);
  cleanups.push(() => gateway.close());
  return gateway;
}

async function scripted(handler: Parameters<typeof scriptedUpstream>[0]): Promise<string> {
  const upstream = await scriptedUpstream(handler);
  cleanups.push(upstream.close);
  return upstream.url;
}

const rpc = (method: string, id: string | number) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method,
    params: { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hi' }] } },
  });

describe('unknown agent', () => {
  it('answers a JSON-RPC call with an error envelope echoing its id', async () => {
    const gateway = await gatewayFor({ known: { url: await deadPort() } });
    const res = await request(`${gateway.url}/agents/nobody/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: rpc('SendMessage', 'req-9'),
    });
    const body = (await res.body.json()) as any;
    expect(res.statusCode).toBe(404);
    expect(body).toMatchObject({ jsonrpc: '2.0', id: 'req-9', error: { code: -32000 } });
    expect(body.error.data[0]).toMatchObject({
      '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
      reason: 'AGENT_NOT_FOUND',
      domain: 'a2a-gateway',
    });
    // Who can reach the port does not learn the fleet from a wrong name.
    expect(body.error.message).toBe('no agent named "nobody" is configured');
    expect(JSON.stringify(body)).not.toContain('known');
  });

  it('answers a REST call with the A2A REST error body', async () => {
    const gateway = await gatewayFor({ known: { url: await deadPort() } });
    const res = await request(`${gateway.url}/agents/nobody/a2a/rest/tasks/t1`, { headers: { 'a2a-version': '1.0' } });
    const body = (await res.body.json()) as any;
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toBe('application/a2a+json');
    expect(body.error).toMatchObject({ code: 404, status: 'NOT_FOUND' });
    expect(body.error.details[0].reason).toBe('AGENT_NOT_FOUND');
  });

  it('explains the trailing slash when a card is asked for one level up', async () => {
    const gateway = await gatewayFor({ reviewer: { url: await deadPort() } });
    const res = await request(`${gateway.url}/agents/.well-known/agent-card.json`);
    const body = (await res.body.json()) as any;
    expect(res.statusCode).toBe(404);
    expect(body.error.message).toMatch(/trailing slash/);
    // The hint says how to fix it, without naming the fleet.
    expect(body.error.message).toMatch(/trailing slash, e.g. \/agents\/\{name\}\//);
    expect(body.error.message).not.toContain('reviewer');
  });

  it('redirects GET /agents/{name} to the URL with the slash', async () => {
    const gateway = await gatewayFor({ reviewer: { url: await deadPort() } });
    const res = await request(`${gateway.url}/agents/reviewer`);
    await res.body.dump();
    expect(res.statusCode).toBe(308);
    expect(res.headers['location']).toBe('/agents/reviewer/');
  });
});

describe('agent down', () => {
  it('answers 502 in JSON-RPC with the request id when nothing listens', async () => {
    const gateway = await gatewayFor({ down: { url: await deadPort() } });
    const res = await request(`${gateway.url}/agents/down/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: rpc('SendMessage', 42),
    });
    const body = (await res.body.json()) as any;
    expect(res.statusCode).toBe(502);
    expect(body).toMatchObject({
      id: 42,
      error: {
        code: -32000,
        data: [{ reason: 'UPSTREAM_UNREACHABLE', metadata: { agent: 'down', cause: 'ECONNREFUSED' } }],
      },
    });
  });

  it('answers 502 in the REST shape for REST calls', async () => {
    const gateway = await gatewayFor({ down: { url: await deadPort() } });
    const res = await request(`${gateway.url}/agents/down/a2a/rest/message:send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: '{"message":{}}',
    });
    const body = (await res.body.json()) as any;
    expect(res.statusCode).toBe(502);
    expect(body.error).toMatchObject({ code: 502, status: 'UNAVAILABLE' });
  });

  it('answers 504 when the configured headers timeout passes', async () => {
    const url = await scripted(() => {
      /* never answers */
    });
    const gateway = await gatewayFor({ slow: { url, timeouts: { headers: '300ms' } } });
    const res = await request(`${gateway.url}/agents/slow/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: rpc('SendMessage', 'slow-1'),
    });
    const body = (await res.body.json()) as any;
    expect(res.statusCode).toBe(504);
    expect(body).toMatchObject({ id: 'slow-1', error: { data: [{ reason: 'UPSTREAM_TIMEOUT' }] } });
  });
});

describe('agent reset mid-stream', () => {
  it('ends an SSE stream with an error event in JSON-RPC shape after the events already relayed', async () => {
    const event =
      'data: {"jsonrpc":"2.0","id":5,"result":{"task":{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_WORKING"}}}}\n\n';
    const url = await scripted((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(event);
      setTimeout(() => res.socket!.destroy(), 50);
    });
    const gateway = await gatewayFor({ flaky: { url } });
    const res = await request(`${gateway.url}/agents/flaky/rpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: rpc('SendStreamingMessage', 5),
    });
    const text = await res.body.text();
    expect(text.startsWith(event)).toBe(true);
    const tail = text.slice(event.length);
    expect(tail).toMatch(/^data: /);
    expect(JSON.parse(tail.slice(6))).toMatchObject({
      jsonrpc: '2.0',
      id: 5,
      error: { code: -32000, data: [{ reason: 'UPSTREAM_RESET' }] },
    });
  });

  it('ends a REST SSE stream with an `event: error` carrying the REST error body', async () => {
    const url = await scripted((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {"task":{"id":"t1"}}\n\n');
      setTimeout(() => res.socket!.destroy(), 50);
    });
    const gateway = await gatewayFor({ flaky: { url } });
    const res = await request(`${gateway.url}/agents/flaky/message:stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: '{"message":{}}',
    });
    const text = await res.body.text();
    expect(text).toMatch(/\n\nevent: error\ndata: \{"error":\{"code":502,"status":"UNAVAILABLE"/);
  });

  it('cuts the client connection when the agent dies mid-way through a JSON body', async () => {
    const url = await scripted((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
      res.write('{"jsonrpc":"2.0","id":1,"result":{"task":');
      setTimeout(() => res.socket!.destroy(), 50);
    });
    const gateway = await gatewayFor({ flaky: { url } });
    const res = await request(`${gateway.url}/agents/flaky/rpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: rpc('SendMessage', 1),
    });
    await expect(res.body.text()).rejects.toThrow();
    // ...and keeps serving.
    const health = await request(`${gateway.url}/healthz`);
    expect(health.statusCode).toBe(200);
    await health.body.dump();
  });
});

describe('hostile input', () => {
  it('passes a malformed JSON-RPC body to the agent untouched and keeps serving', async () => {
    const seen: Buffer[] = [];
    const url = await scripted(async (req, res) => {
      for await (const c of req) seen.push(c as Buffer);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}');
    });
    const gateway = await gatewayFor({ a: { url } });
    const garbage = Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x00, 0x5c]);
    const res = await request(`${gateway.url}/agents/a/rpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: garbage,
    });
    expect(res.statusCode).toBe(200);
    expect(await res.body.text()).toContain('-32700');
    expect(Buffer.concat(seen).equals(garbage)).toBe(true);
  });
});
