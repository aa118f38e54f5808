/**
 * Fair upstream pools (principle 19): long-lived streams have a pool of their own, so open
 * streams never starve unary calls; a call that waits for a connection longer than
 * `timeouts.queue` gets 503 AGENT_BUSY with Retry-After, and is never sent afterwards.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerResponse } from 'node:http';
import { Agent, request } from 'undici';
import { scriptedUpstream } from '../support/scripted-upstream.js';
import { startTestGateway } from '../support/gateway.js';
import type { RunningGateway } from '../../src/gateway/gateway.js';

const held: ServerResponse[] = [];
const arrived: string[] = [];
let upstream: Awaited<ReturnType<typeof scriptedUpstream>>;
let gateway: RunningGateway;
const client = new Agent({ connections: 100 });

beforeAll(async () => {
  upstream = await scriptedUpstream((req, res) => {
    if (req.url!.includes('/.well-known/')) return void res.writeHead(404).end();
    arrived.push(req.url!);
    if (req.url === '/sse') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {"jsonrpc":"2.0","id":1,"result":{"task":{"id":"t"}}}\n\n');
      return void held.push(res);
    }
    if (req.url!.startsWith('/slow')) return void held.push(res);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  });
  gateway = await startTestGateway({
    // The queue itself: one client fills the pool here, so no per-caller share (fair-share.test.ts has it).
    a: {
      url: upstream.url,
      connections: 2,
      streamConnections: 50,
      timeouts: { queue: '300ms' },
      limits: { callsPerClient: 0 },
    },
  });
});
afterAll(async () => {
  for (const res of held) res.destroy();
  await gateway.close();
  await upstream.close();
  await client.close();
});

const stream = () =>
  request(`${gateway.url}/agents/a/sse`, {
    dispatcher: client,
    method: 'POST',
    headers: { accept: 'text/event-stream', 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendStreamingMessage', params: {} }),
  });

describe('upstream pools', () => {
  it('serves 20 open streams and still answers a unary call on a two-connection pool', async () => {
    const streams = await Promise.all(Array.from({ length: 20 }, stream));
    expect(streams.map((s) => s.statusCode)).toEqual(Array(20).fill(200));
    const unary = await request(`${gateway.url}/agents/a/fast`, { dispatcher: client });
    expect(unary.statusCode).toBe(200);
    expect(await unary.body.json()).toEqual({ ok: true });
    for (const s of streams) s.body.destroy();
  });

  it('answers 503 with Retry-After when every connection stays busy, and never sends that call', async () => {
    const slow = [1, 2].map((i) => request(`${gateway.url}/agents/a/slow-${i}`, { dispatcher: client }));
    while (arrived.filter((u) => u.startsWith('/slow')).length < 2) await new Promise((r) => setTimeout(r, 10));
    const waiting = await request(`${gateway.url}/agents/a/queued`, { dispatcher: client });
    expect(waiting.statusCode).toBe(503);
    expect(waiting.headers['retry-after']).toBe('1');
    expect(await waiting.body.json()).toMatchObject({ error: { details: [{ reason: 'AGENT_BUSY' }] } });
    for (const res of held.splice(0)) if (!res.headersSent) res.writeHead(200).end('{}');
    await Promise.all(slow.map(async (p) => (await p).body.text()));
    const after = await request(`${gateway.url}/agents/a/fast`, { dispatcher: client });
    expect(after.statusCode).toBe(200);
    await after.body.text();
    expect(arrived).not.toContain('/queued');
  });
});
