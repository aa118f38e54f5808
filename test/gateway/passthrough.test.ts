/**
 * The gateway is a faithful proxy: for every recorded exchange, the agent receives the client's
 * request body unchanged and the client receives the agent's response body byte for byte, with
 * SSE events passed on as they leave the agent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, request } from 'undici';
import { listCaptures, loadCapture, type Capture } from '../a2a/captures.js';
import { asBuffer, startReplayUpstream, type ReplayUpstream } from '../support/replay-upstream.js';
import { startTestGateway } from '../support/gateway.js';
import type { RunningGateway } from '../../src/gateway/gateway.js';

const SKIP_HEADERS = new Set(['host', 'content-length', 'connection', 'transfer-encoding']);
/** Cards are rewritten on purpose (cards.test.ts); everything else must pass through untouched. */
const isCard = (c: Capture) => c.request.path.includes('/.well-known/') || /extended-card|card\.http$/.test(c.name);
const target = (c: Capture) => c.request.path + (c.request.query ? `?${c.request.query}` : '');

let upstream: ReplayUpstream;
let gateway: RunningGateway;
const client = new Agent({ connections: 4 });

beforeAll(async () => {
  upstream = await startReplayUpstream();
  // The captures' push webhooks point at the recording host's loopback receiver: allow-listed, as
  // an operator would for a local receiver, so the push-webhook guard lets them through unchanged.
  gateway = await startTestGateway(
    { replay: { url: upstream.url } },
    { pushNotifications: { allow: ['127.0.0.1/32'] } },
  );
});
afterAll(async () => {
  await gateway.close();
  await upstream.close();
  await client.close();
});

function send(capture: Capture) {
  const headers: Record<string, string> = { 'x-replay': capture.name };
  for (const [name, value] of capture.request.rawHeaders)
    if (!SKIP_HEADERS.has(name.toLowerCase())) headers[name] = value;
  return request(`${gateway.url}/agents/replay${target(capture)}`, {
    dispatcher: client,
    method: capture.request.method as 'GET',
    headers,
    body: capture.request.body.length ? asBuffer(capture.request.body) : undefined,
  });
}

const replayable = listCaptures()
  // A JSON-RPC batch is refused by the gateway itself (-32600, issue #29: test/hostile/compressed-bodies.test.ts).
  .filter((f) => !f.includes('--push-') && !f.includes('-rpc-batch'))
  .map(loadCapture)
  .filter((c) => c.response && !c.response.aborted && !isCard(c));

describe('byte-identical pass-through of recorded exchanges', () => {
  it('has a broad set of captures to replay', () => {
    expect(replayable.length).toBeGreaterThan(80);
  });

  it.each(replayable.map((c) => [c.name, c] as const))('%s', async (_name, capture) => {
    const before = upstream.received.length;
    const res = await send(capture);
    const body = Buffer.from(await res.body.arrayBuffer());
    expect(res.statusCode).toBe(capture.response!.status);
    expect(body.equals(asBuffer(capture.response!.body))).toBe(true);
    const received = upstream.received[before]!;
    expect(received.body.equals(asBuffer(capture.request.body))).toBe(true);
    expect(received.url).toBe(target(capture));
    // End-to-end A2A headers reach the agent (wire-reference §5.9).
    for (const name of ['a2a-version', 'a2a-extensions', 'x-a2a-extensions', 'authorization']) {
      const sent = capture.request.headers[name];
      if (sent !== undefined) expect(received.headers[name]).toBe(sent);
    }
    const contentType = capture.response!.headers['content-type'];
    if (contentType) expect(res.headers['content-type']).toBe(contentType);
  });
});

describe('streaming', () => {
  it('delivers each SSE event to the client before the agent sends the next', async () => {
    const capture = loadCapture('v1--jsonrpc-send-streaming.http');
    const expectedReads = capture.reads!.length;
    let received = Buffer.alloc(0);
    const seen: number[] = [];
    let onData: (() => void) | undefined;
    // The agent holds each next event until the client has the previous one in hand: a proxy
    // that buffered would never let the stream finish, and the test would time out.
    upstream.between = (_c, index) =>
      new Promise<void>((resolve) => {
        const check = () => {
          const expectedBytes = capture.reads!.slice(0, index).reduce((a, r) => a + r.bytes, 0);
          if (received.length >= expectedBytes) {
            seen.push(index);
            onData = undefined;
            resolve();
          }
        };
        onData = check;
        check();
      });
    try {
      const res = await send(capture);
      for await (const chunk of res.body) {
        received = Buffer.concat([received, chunk as Buffer]);
        onData?.();
      }
    } finally {
      upstream.between = undefined;
    }
    expect(seen).toEqual(Array.from({ length: expectedReads - 1 }, (_, i) => i + 1));
    expect(received.equals(asBuffer(capture.response!.body))).toBe(true);
  });

  it('marks event streams unbuffered for proxies in front of the gateway', async () => {
    const res = await send(loadCapture('v1--rest-send-streaming.http'));
    await res.body.dump();
    expect(res.headers['x-accel-buffering']).toBe('no');
    expect(res.headers['content-type']).toBe('text/event-stream');
  });
});
