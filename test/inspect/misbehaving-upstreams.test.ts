/**
 * Agents that break the protocol: the gateway records the named finding and the client still
 * receives the agent's exact bytes (inspection never alters traffic, principle 5).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { request } from 'undici';
import { scriptedUpstream } from '../support/scripted-upstream.js';
import { startTestGateway } from '../support/gateway.js';
import { loadCapture } from '../a2a/captures.js';
import { asBuffer } from '../support/replay-upstream.js';
import type { Exchange } from '../../src/exchange/exchange.js';
import type { ExchangeRecord } from '../../src/exchange/record.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

/** Runs one request against an upstream that answers with `body` (optionally in pieces). */
async function through(
  reply: (req: IncomingMessage, res: ServerResponse) => void,
  requestBody: string,
  path = '/rpc',
  config: Record<string, unknown> = {},
): Promise<{ received: Buffer; record: ExchangeRecord }> {
  const upstream = await scriptedUpstream(async (req, res) => {
    for await (const _ of req);
    reply(req, res);
  });
  cleanups.push(upstream.close);
  const records: ExchangeRecord[] = [];
  const gateway = await startTestGateway({ bad: { url: upstream.url } }, config, [
    { onFinish: (ex: Exchange) => void records.push(ex.record) },
  ]);
  cleanups.push(() => gateway.close());
  const res = await request(`${gateway.url}/agents/bad${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: requestBody,
  });
  const chunks: Buffer[] = [];
  try {
    for await (const c of res.body) chunks.push(c as Buffer);
  } catch {
    // a cut stream may error on the client side; what arrived is still compared
  }
  await new Promise((r) => setTimeout(r, 20)); // the record is finished after the last byte
  return { received: Buffer.concat(chunks), record: records.at(-1)! };
}

const send = (method = 'SendMessage') =>
  JSON.stringify({
    jsonrpc: '2.0',
    id: 3,
    method,
    params: { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'x' }] } },
  });
const rules = (r: ExchangeRecord) => r.findings.map((f) => f.rule);

describe('misbehaving agents', () => {
  it('a SendMessage result with both task and message', async () => {
    const body =
      '{"jsonrpc":"2.0","id":3,"result":{"task":{"id":"t","contextId":"c","status":{"state":"TASK_STATE_COMPLETED"}},"message":{"messageId":"m2","role":"ROLE_AGENT","parts":[{"text":"hi"}]}}}';
    const { received, record } = await through(
      (_q, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(body),
      send(),
    );
    expect(received.toString()).toBe(body);
    expect(rules(record)).toContain('a2a.send-result-shape');
  });

  it('invalid JSON past the head of a later stream event: reported with inspection.streamEvents full', async () => {
    const frame = (result: string) => `data: {"jsonrpc":"2.0","id":3,"result":${result}}\n\n`;
    const body =
      frame('{"task":{"id":"t","contextId":"c","status":{"state":"TASK_STATE_SUBMITTED"}}}') +
      frame('{"statusUpdate":{"taskId":"t","status":{"state":"TASK_STATE_WORKING"},"note":oops}}') +
      frame('{"statusUpdate":{"taskId":"t","status":{"state":"TASK_STATE_COMPLETED"}}}');
    const sse = (_q: IncomingMessage, res: ServerResponse) =>
      res.writeHead(200, { 'content-type': 'text/event-stream' }).end(body);
    const head = await through(sse, send('SendStreamingMessage'));
    const full = await through(sse, send('SendStreamingMessage'), '/rpc', { inspection: { streamEvents: 'full' } });
    expect(head.received.toString()).toBe(body);
    expect(full.received.toString()).toBe(body);
    expect(rules(full.record)).toContain('a2a.invalid-json');
    expect(rules(head.record)).not.toContain('a2a.invalid-json');
    // Either way the stream's story is the same.
    for (const r of [head.record, full.record])
      expect(r.a2a).toMatchObject({ state: 'TASK_STATE_COMPLETED', taskId: 't' });
  });

  it('invalid JSON', async () => {
    const body = '{"jsonrpc":"2.0","id":3,"result":{"task":';
    const { received, record } = await through(
      (_q, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(body),
      send(),
    );
    expect(received.toString()).toBe(body);
    expect(rules(record)).toContain('a2a.invalid-json');
  });

  it('a stream cut mid-event', async () => {
    const events =
      'data: {"jsonrpc":"2.0","id":3,"result":{"task":{"id":"t","contextId":"c","status":{"state":"TASK_STATE_WORKING"}}}}\n\ndata: {"jsonrpc":"2.0","id":3,"res';
    const { received, record } = await through((_q, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(events); // the agent closes cleanly, but inside an event
    }, send('SendStreamingMessage'));
    expect(received.toString()).toBe(events);
    expect(rules(record)).toContain('a2a.stream-cut-mid-event');
  });

  it('a blocking send answered while the task is still WORKING', async () => {
    const body =
      '{"jsonrpc":"2.0","id":3,"result":{"task":{"id":"t","contextId":"c","status":{"state":"TASK_STATE_WORKING"}}}}';
    const { record } = await through(
      (_q, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(body),
      send(),
    );
    expect(rules(record)).toContain('a2a.blocking-send-not-final');
  });

  it('a JSON-RPC response whose id does not match the request', async () => {
    const body =
      '{"jsonrpc":"2.0","id":99,"result":{"message":{"messageId":"m2","role":"ROLE_AGENT","parts":[{"text":"hi"}]}}}';
    const { record } = await through(
      (_q, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(body),
      send(),
    );
    expect(rules(record)).toContain('a2a.jsonrpc-id-mismatch');
  });

  it('the 0.3.14 server forwarding events after the terminal state (recorded capture)', async () => {
    const capture = loadCapture('v03--jsonrpc-send-streaming-misbehave.http');
    const { received, record } = await through((_q, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(asBuffer(capture.response!.body));
    }, asBuffer(capture.request.body).toString());
    expect(received.equals(asBuffer(capture.response!.body))).toBe(true);
    expect(rules(record)).toContain('a2a.stream-event-after-terminal');
  });
});
