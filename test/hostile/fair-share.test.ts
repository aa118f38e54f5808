/**
 * Issue #29 item 2: one client must not fill an agent's unary pool. A caller — the principal
 * access control identified, else the client address — may have at most
 * `agents.{name}.limits.callsPerClient` calls in flight to an agent; past it a call is refused at
 * once in the caller's protocol (429 CLIENT_SHARE_EXCEEDED, Retry-After), never sent, and every
 * other caller is still answered. Before the share, blocking sends from one client took all of
 * `connections` and the others' GetTask waited `timeouts.queue`, then got 503 AGENT_BUSY.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerResponse } from 'node:http';
import { connect, type ClientHttp2Session } from 'node:http2';
import { connect as netConnect } from 'node:net';
import { Agent, request } from 'undici';
import { scriptedUpstream } from '../support/scripted-upstream.js';
import { startTestGateway } from '../support/gateway.js';
import type { RunningGateway } from '../../src/gateway/gateway.js';
import { eventually, getTask, rawCall, sendMessageRequest, SERVICE } from '../grpc/support/raw-grpc.js';
import { startFakeAgent, type FakeAgent } from '../grpc/support/fake-agent.js';

const held: ServerResponse[] = [];
const arrived: string[] = [];
let upstream: Awaited<ReturnType<typeof scriptedUpstream>>;
let open: RunningGateway;
let keyed: RunningGateway;
/** A gRPC agent that never answers: every call it gets stays in flight. */
let grpcAgent: FakeAgent;
/** Client A from 127.0.0.1, client B from 127.0.0.2 (Linux answers the whole 127/8 on loopback). */
const clientA = new Agent({ connections: 20 });
const clientB = new Agent({ connections: 20, localAddress: '127.0.0.2' });

// Four connections to the agent, so each caller's share is two by default (half of them: nothing
// else configured); a short queue so the run on a build without the share fails in 300 ms
// (503 AGENT_BUSY) rather than the default 30 s.
const agent = (url: string) => ({ url, connections: 4, timeouts: { queue: '300ms' } });

beforeAll(async () => {
  upstream = await scriptedUpstream((req, res) => {
    if (req.url!.includes('/.well-known/')) return void res.writeHead(404).end();
    arrived.push(req.url!);
    req.resume();
    // A blocking SendMessage the agent holds open (A2A's default for a long task).
    if (req.url!.startsWith('/slow')) return void held.push(res);
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end('{"jsonrpc":"2.0","id":7,"result":{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_WORKING"}}}');
  });
  grpcAgent = await startFakeAgent();
  open = await startTestGateway(
    { a: agent(upstream.url), g: { ...agent(upstream.url), grpc: { url: grpcAgent.url, listen: { port: 0 } } } },
    { listen: { host: '127.0.0.1', port: 0, grpc: { port: 0 } } },
  );
  keyed = await startTestGateway(
    { a: { ...agent(upstream.url), access: { taskOwnership: false } } },
    { auth: { apiKeys: { alice: { key: 'alice-key-0123456789' }, bob: { key: 'bob-key-0123456789' } } } },
  );
});
afterAll(async () => {
  for (const res of held) res.destroy();
  await open.close();
  await keyed.close();
  await upstream.close();
  await grpcAgent.close();
  await clientA.close();
  await clientB.close();
});

const rpc = (method: string, id: number) => JSON.stringify({ jsonrpc: '2.0', id, method, params: {} });
const call = (gateway: RunningGateway, path: string, method: string, id: number, client: Agent, key?: string) =>
  request(`${gateway.url}/agents/a${path}`, {
    dispatcher: client,
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { 'x-api-key': key } : {}) },
    body: rpc(method, id),
  });
const heldCount = () => arrived.filter((u) => u.startsWith('/slow')).length;
async function untilHeld(n: number) {
  while (heldCount() < n) await new Promise((r) => setTimeout(r, 10));
}
async function releaseHeld() {
  for (const res of held.splice(0))
    if (!res.headersSent) res.writeHead(200).end('{"jsonrpc":"2.0","id":1,"result":{}}');
}

describe('each caller gets a bounded share of an agent’s unary calls', () => {
  it('by client address: A’s calls past its share are refused at once, B is still answered', async () => {
    arrived.length = 0;
    const blocking = [1, 2].map((i) => call(open, `/slow-${i}`, 'SendMessage', i, clientA));
    await untilHeld(2);
    // Two more blocking sends from A: on a pool of four they would leave one connection for everyone else.
    const extra = [3, 4].map((i) => call(open, `/slow-${i}`, 'SendMessage', i, clientA));
    await new Promise((r) => setTimeout(r, 50));
    // B's GetTask is answered by the agent, not queued behind A's calls.
    const b = await call(open, '/', 'GetTask', 7, clientB);
    expect(b.statusCode).toBe(200);
    expect(await b.body.json()).toMatchObject({ id: 7, result: { id: 't1' } });
    // A's extra calls: 429 in A's protocol (JSON-RPC, its id), with Retry-After, never sent.
    for (const [i, pending] of extra.entries()) {
      const res = await pending;
      expect(res.statusCode).toBe(429);
      expect(res.headers['retry-after']).toBe('1');
      const body = (await res.body.json()) as { id: number; error: { data?: unknown } };
      expect(body.id).toBe(i + 3);
      expect(JSON.stringify(body.error)).toContain('CLIENT_SHARE_EXCEEDED');
    }
    expect(arrived).not.toContain('/slow-3');
    expect(arrived).not.toContain('/slow-4');
    // The share is given back when the calls end: A may place two again.
    await releaseHeld();
    await Promise.all((await Promise.all(blocking)).map((r) => r.body.text()));
    const again = await Promise.all([5, 6].map((i) => call(open, '/', 'GetTask', i, clientA)));
    expect(again.map((r) => r.statusCode)).toEqual([200, 200]);
    await Promise.all(again.map((r) => r.body.text()));
  });

  it('by principal: alice past her share is refused, bob from the same address is answered', async () => {
    arrived.length = 0;
    const alice = 'alice-key-0123456789';
    const blocking = [1, 2].map((i) => call(keyed, `/slow-${i}`, 'SendMessage', i, clientA, alice));
    await untilHeld(2);
    const extra = [3, 4].map((i) => call(keyed, `/slow-${i}`, 'SendMessage', i, clientA, alice));
    await new Promise((r) => setTimeout(r, 50));
    const bob = await call(keyed, '/', 'GetTask', 7, clientA, 'bob-key-0123456789');
    expect(bob.statusCode).toBe(200);
    await bob.body.text();
    for (const pending of extra) {
      const refused = await pending;
      expect(refused.statusCode).toBe(429);
      expect(JSON.stringify(await refused.body.json())).toContain('CLIENT_SHARE_EXCEEDED');
    }
    await releaseHeld();
    await Promise.all((await Promise.all(blocking)).map((r) => r.body.text()));
  });

  it('on gRPC: A’s call past its share is RESOURCE_EXHAUSTED at once, B’s call reaches the agent', async () => {
    const session = (localAddress: string) =>
      new Promise<ClientHttp2Session>((resolve, reject) => {
        const port = open.grpcPorts.agents.get('g')!;
        const s = connect(`http://127.0.0.1:${port}`, {
          createConnection: () => netConnect({ host: '127.0.0.1', port, localAddress }),
        });
        s.once('remoteSettings', () => resolve(s));
        s.once('error', reject);
      });
    const [a, b] = await Promise.all([session('127.0.0.1'), session('127.0.0.2')]);
    try {
      const send = (s: ClientHttp2Session) =>
        rawCall(s, `${SERVICE}SendMessage`, { body: sendMessageRequest('hold'), ms: 10_000 });
      const blocking = [send(a), send(a)];
      await eventually(() => grpcAgent.streams.length >= 2, 3000, 'A’s two calls reaching the agent');
      const refused = await rawCall(a, `${SERVICE}SendMessage`, { body: sendMessageRequest('one more'), ms: 3000 });
      expect(refused.status?.code).toBe(8); // RESOURCE_EXHAUSTED
      expect(refused.status?.reason).toBe('CLIENT_SHARE_EXCEEDED');
      expect(grpcAgent.streams).toHaveLength(2);
      // B's GetTask is placed on the agent (which never answers it either).
      const bCall = rawCall(b, `${SERVICE}GetTask`, { body: getTask('t1'), ms: 10_000 });
      await eventually(() => grpcAgent.streams.length >= 3, 3000, 'B’s call reaching the agent');
      expect(grpcAgent.streams[2]!.headers[':path']).toBe(`${SERVICE}GetTask`);
      a.destroy();
      b.destroy();
      await Promise.allSettled([...blocking, bCall]);
    } finally {
      a.destroy();
      b.destroy();
    }
  });

  it('counts the refusals in a2a_rejections_total', async () => {
    const metrics = await (await fetch(open.metricsUrl!)).text();
    expect(metrics).toMatch(/a2a_rejections_total\{agent="a",reason="CLIENT_SHARE_EXCEEDED"\} 2/);
    expect(metrics).toMatch(/a2a_rejections_total\{agent="g",reason="CLIENT_SHARE_EXCEEDED"\} 1/);
  });
});
