/**
 * The timeout rescue holds at most MAX_REPLY_BYTES of any one reply (issue #12 item 4): an agent
 * that answers with a huge body is cut off once the rescue has read that much, and the client
 * gets a clear UPSTREAM_INVALID in its protocol — on the stream path (a SendStreamingMessage
 * answered with a plain JSON body, which `followEvents` once read whole) and the poll path
 * (a SendMessage reply). An SSE event longer than the cap is skipped, never held: the rescue
 * still answers at the deadline with the task the stream named.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ServerResponse } from 'node:http';
import { request } from 'undici';
import { scriptedUpstream } from '../support/scripted-upstream.js';
import { startTestGateway } from '../support/gateway.js';
import { MAX_REPLY_BYTES } from '../../src/bindings/http/rescue-calls.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

const HUGE = 64 * 1024 * 1024;
const PIECE = Buffer.alloc(64 * 1024, 0x20); // spaces: the start of a (never ending) JSON body

const rpcSend = JSON.stringify({
  jsonrpc: '2.0',
  id: 'r1',
  method: 'SendMessage',
  params: { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hi' }] } },
});
const headers = { 'content-type': 'application/json', 'a2a-version': '1.0' };

/** Writes `total` bytes with backpressure; resolves with what was written when the body ends or is cut. */
function writeHuge(
  res: ServerResponse,
  total: number,
  start = '',
  end = true,
): Promise<{ written: number; finished: boolean }> {
  return new Promise((resolve) => {
    let written = 0;
    res.on('close', () => resolve({ written, finished: res.writableFinished }));
    res.on('error', () => {});
    if (start) res.write(start);
    const pump = () => {
      while (written < total && !res.destroyed) {
        written += PIECE.length;
        if (written >= total) return void (end ? res.end(PIECE) : res.write(PIECE));
        if (!res.write(PIECE)) return void res.once('drain', pump);
      }
    };
    pump();
  });
}

/** An agent whose answers a test scripts per JSON-RPC method; cards are 404 (strategy is explicit). */
async function agent(handle: (method: string, res: ServerResponse) => void) {
  const upstream = await scriptedUpstream(async (req, res) => {
    let body = '';
    for await (const c of req) body += c;
    if (req.url!.includes('.well-known')) return void res.writeHead(404).end();
    handle(JSON.parse(body).method, res);
  });
  cleanups.push(() => upstream.close());
  return upstream;
}

async function gatewayFor(url: string, strategy: string) {
  const gateway = await startTestGateway({
    a: { url, timeoutRescue: { enabled: true, clientTimeout: '3s', margin: '200ms', strategy } },
  });
  cleanups.push(() => gateway.close());
  return gateway;
}

describe('the timeout rescue reads no more than its cap of one reply', () => {
  it('stream path: a 64 MB plain-JSON answer to SendStreamingMessage is cut off and answered UPSTREAM_INVALID', async () => {
    let sent!: Promise<{ written: number; finished: boolean }>;
    const upstream = await agent((method, res) => {
      expect(method).toBe('SendStreamingMessage');
      res.writeHead(200, { 'content-type': 'application/json' }); // no length: the count must stop it
      sent = writeHuge(res, HUGE);
    });
    const gateway = await gatewayFor(upstream.url, 'stream');
    const res = await request(`${gateway.url}/agents/a/a2a/jsonrpc`, { method: 'POST', headers, body: rpcSend });
    const doc = (await res.body.json()) as any;
    expect(res.statusCode).toBe(502);
    expect(doc).toMatchObject({ jsonrpc: '2.0', id: 'r1', error: { code: -32000 } });
    expect(doc.error.data[0]).toMatchObject({ reason: 'UPSTREAM_INVALID', metadata: { cause: 'REPLY_TOO_LARGE' } });
    const { written, finished } = await sent;
    expect(finished).toBe(false); // the gateway closed the connection mid-body
    expect(written).toBeLessThan(MAX_REPLY_BYTES + 16 * 1024 * 1024); // the cap plus socket buffers, not 64 MB
  });

  it('stream path: a declared Content-Length past the cap is refused before the body is read', async () => {
    let sent!: Promise<{ written: number; finished: boolean }>;
    const upstream = await agent((_method, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(HUGE) });
      sent = writeHuge(res, HUGE);
    });
    const gateway = await gatewayFor(upstream.url, 'stream');
    const res = await request(`${gateway.url}/agents/a/a2a/jsonrpc`, { method: 'POST', headers, body: rpcSend });
    const doc = (await res.body.json()) as any;
    expect(res.statusCode).toBe(502);
    expect(doc.error.data[0]).toMatchObject({ reason: 'UPSTREAM_INVALID', metadata: { cause: 'REPLY_TOO_LARGE' } });
    expect((await sent).finished).toBe(false);
  });

  it('poll path: a 64 MB SendMessage reply is answered UPSTREAM_INVALID (not a connection failure)', async () => {
    let sent!: Promise<{ written: number; finished: boolean }>;
    const upstream = await agent((method, res) => {
      expect(method).toBe('SendMessage');
      res.writeHead(200, { 'content-type': 'application/json' });
      sent = writeHuge(res, HUGE);
    });
    const gateway = await gatewayFor(upstream.url, 'poll');
    const res = await request(`${gateway.url}/agents/a/a2a/jsonrpc`, { method: 'POST', headers, body: rpcSend });
    const doc = (await res.body.json()) as any;
    expect(res.statusCode).toBe(502);
    expect(doc.error.data[0]).toMatchObject({ reason: 'UPSTREAM_INVALID', metadata: { cause: 'REPLY_TOO_LARGE' } });
    expect(doc.error.message).toMatch(/more than \d+ bytes/);
    const { written, finished } = await sent;
    expect(finished).toBe(false);
    expect(written).toBeLessThan(MAX_REPLY_BYTES + 16 * 1024 * 1024);
  });

  it('SSE path: an unterminated 64 MB event is skipped, and the task named before it is answered at the deadline', async () => {
    const task = { id: 't-big', contextId: 'c1', status: { state: 'TASK_STATE_WORKING' } };
    let sent!: Promise<{ written: number; finished: boolean }>;
    const upstream = await agent((method, res) => {
      if (method === 'GetTask')
        return void res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ jsonrpc: '2.0', id: 1, result: task }));
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const first = `data: ${JSON.stringify({ jsonrpc: '2.0', id: 1, result: { task } })}\n\n`;
      // 64 MB of one event's data, then the stream stays open inside it.
      sent = writeHuge(res, HUGE, `${first}data: {"jsonrpc":"2.0","id":1,"result":{"pad":"`, false);
    });
    const gateway = await gatewayFor(upstream.url, 'stream');
    const res = await request(`${gateway.url}/agents/a/a2a/jsonrpc`, { method: 'POST', headers, body: rpcSend });
    const doc = (await res.body.json()) as any;
    expect(res.statusCode).toBe(200);
    expect(res.headers['a2a-gateway-rescue']).toBe('deadline');
    expect(doc.result.task).toMatchObject({ id: 't-big', status: { state: 'TASK_STATE_WORKING' } });
    expect((await sent).finished).toBe(false); // the gateway closed the stream at the deadline
  });
});
