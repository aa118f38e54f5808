/**
 * How the rescue waits, and what it does when things go wrong: an agent without streaming is
 * polled; an agent that ignores returnImmediately is caught (polling: a clear error at the
 * deadline; streaming: the task id from the first event); a client that leaves mid-wait stops
 * the wait without canceling the task, and its id stays in the record.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { request } from 'undici';
import { startPeerV1 } from '../peers/peer-v1.js';
import { scriptedUpstream } from '../support/scripted-upstream.js';
import { startTestGateway } from '../support/gateway.js';
import { parseConfig } from '../../src/config/load.js';
import { startGateway } from '../../src/gateway/gateway.js';
import type { Exchange } from '../../src/exchange/exchange.js';
import type { ExchangeRecord } from '../../src/exchange/record.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

const rpcSend = (text: string) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id: 'r1',
    method: 'SendMessage',
    params: { message: { messageId: `m-${text}`, role: 'ROLE_USER', parts: [{ text }] } },
  });
const headers = { 'content-type': 'application/json', 'a2a-version': '1.0' };

function recorder() {
  const records: ExchangeRecord[] = [];
  const exchanges: Exchange[] = [];
  return {
    records,
    exchanges,
    observer: { onFinish: (ex: Exchange) => void (records.push(ex.record), exchanges.push(ex)) },
  };
}

describe('strategies', () => {
  it('polls GetTask for an agent whose card says streaming: false (auto)', async () => {
    const peer = await startPeerV1({ streaming: false });
    cleanups.push(() => peer.close());
    const rec = recorder();
    const gateway = await startTestGateway(
      {
        a: {
          url: peer.url,
          timeoutRescue: { enabled: true, clientTimeout: '10s', pollInitial: '50ms', pollMax: '100ms' },
        },
      },
      {},
      [rec.observer],
    );
    cleanups.push(() => gateway.close());
    const res = await request(`${gateway.url}/agents/a/a2a/jsonrpc`, {
      method: 'POST',
      headers,
      body: rpcSend('sleep:200 polled'),
    });
    const doc = (await res.body.json()) as any;
    expect(res.headers['a2a-gateway-rescue']).toBe('settled');
    expect(doc.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    const rescue = rec.records.at(-1)!.rescue!;
    expect(rescue).toMatchObject({ strategy: 'poll', outcome: 'settled', taskId: doc.result.task.id });
    expect(rescue.polls).toBeGreaterThan(0);
    // No SubscribeToTask was tried on an agent that cannot stream (spec §3.3.4).
    expect(peer.requests.filter((r) => r.method === 'POST').length).toBe(rescue.polls + 2); // send + polls + final GetTask
  });

  it('subscribes for a streaming agent (auto) and answers without polling', async () => {
    const peer = await startPeerV1();
    cleanups.push(() => peer.close());
    const rec = recorder();
    const gateway = await startTestGateway(
      { a: { url: peer.url, timeoutRescue: { enabled: true, clientTimeout: '10s' } } },
      {},
      [rec.observer],
    );
    cleanups.push(() => gateway.close());
    const res = await request(`${gateway.url}/agents/a/a2a/jsonrpc`, {
      method: 'POST',
      headers,
      body: rpcSend('sleep:200 subscribed'),
    });
    expect(((await res.body.json()) as any).result.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(rec.records.at(-1)!.rescue).toMatchObject({ strategy: 'subscribe', outcome: 'settled', polls: 0 });
    expect(rec.records.at(-1)!.rescue!.settleToAnswerMs).toBeGreaterThanOrEqual(0);
    const metrics = await (await fetch(gateway.metricsUrl!)).text();
    expect(metrics).toMatch(/a2a_timeout_rescues_total\{agent="a",outcome="settled"\} 1/);
    expect(metrics).toMatch(/a2a_timeout_rescue_answer_delay_seconds_count\{agent="a",strategy="subscribe"\} 1/);
  });
});

/** An agent that ignores returnImmediately: a send answers only when the task is done (3 s);
 * a streaming send names the task at once; GetTask knows the task. */
async function stubbornAgent() {
  const started = Date.now();
  const task = (state: string) => ({
    id: 'stubborn-1',
    contextId: 'c1',
    status: { state, timestamp: new Date(state === 'TASK_STATE_COMPLETED' ? started + 3000 : started).toISOString() },
  });
  const upstream = await scriptedUpstream(async (req, res) => {
    let body = '';
    for await (const c of req) body += c;
    if (req.url!.includes('.well-known'))
      return void res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ name: 'stubborn', capabilities: { streaming: true } }));
    const doc = JSON.parse(body);
    const done = () => Date.now() - started >= 3000;
    if (doc.method === 'SendMessage') {
      setTimeout(
        () =>
          res
            .writeHead(200, { 'content-type': 'application/json' })
            .end(JSON.stringify({ jsonrpc: '2.0', id: doc.id, result: { task: task('TASK_STATE_COMPLETED') } })),
        3000,
      );
    } else if (doc.method === 'SendStreamingMessage') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(
        `data: ${JSON.stringify({ jsonrpc: '2.0', id: doc.id, result: { task: task('TASK_STATE_WORKING') } })}\n\n`,
      );
      setTimeout(
        () =>
          res.end(
            `data: ${JSON.stringify({ jsonrpc: '2.0', id: doc.id, result: { statusUpdate: { taskId: 'stubborn-1', contextId: 'c1', status: task('TASK_STATE_COMPLETED').status } } })}\n\n`,
          ),
        3000,
      );
    } else if (doc.method === 'GetTask') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: doc.id,
          result: task(done() ? 'TASK_STATE_COMPLETED' : 'TASK_STATE_WORKING'),
        }),
      );
    } else {
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ jsonrpc: '2.0', id: doc.id, error: { code: -32601, message: 'no' } }));
    }
  });
  cleanups.push(upstream.close);
  return upstream.url;
}

describe('an agent that ignores returnImmediately', () => {
  it('polling: the client gets a clear error at its deadline, and the agent a finding', async () => {
    const rec = recorder();
    const gateway = await startTestGateway(
      {
        a: {
          url: await stubbornAgent(),
          timeoutRescue: { enabled: true, clientTimeout: '1500ms', margin: '500ms', strategy: 'poll' },
        },
      },
      {},
      [rec.observer],
    );
    cleanups.push(() => gateway.close());
    const res = await request(`${gateway.url}/agents/a/rpc`, { method: 'POST', headers, body: rpcSend('work') });
    const doc = (await res.body.json()) as any;
    expect(res.statusCode).toBe(504);
    expect(doc).toMatchObject({
      id: 'r1',
      error: {
        code: -32000,
        data: [{ reason: 'UPSTREAM_TIMEOUT', metadata: { cause: 'RETURN_IMMEDIATELY_IGNORED' } }],
      },
    });
    expect(doc.error.message).toMatch(/ignored returnImmediately/);
    const record = rec.records.at(-1)!;
    expect(record.rescue!.outcome).toBe('agent-blocked');
    expect(record.findings.map((f) => f.rule)).toContain('a2a.return-immediately-ignored');
  });

  it('streaming: the task id comes from the first event, the client gets the WORKING task at its deadline', async () => {
    const rec = recorder();
    const gateway = await startTestGateway(
      {
        a: {
          url: await stubbornAgent(),
          timeoutRescue: { enabled: true, clientTimeout: '1500ms', margin: '500ms', strategy: 'stream' },
        },
      },
      {},
      [rec.observer],
    );
    cleanups.push(() => gateway.close());
    const res = await request(`${gateway.url}/agents/a/rpc`, { method: 'POST', headers, body: rpcSend('work') });
    const doc = (await res.body.json()) as any;
    expect(res.headers['a2a-gateway-rescue']).toBe('deadline');
    expect(doc).toMatchObject({
      jsonrpc: '2.0',
      id: 'r1',
      result: { task: { id: 'stubborn-1', status: { state: 'TASK_STATE_WORKING' } } },
    });
    expect(rec.records.at(-1)!.rescue).toMatchObject({ strategy: 'stream', outcome: 'deadline', taskId: 'stubborn-1' });
  });
});

describe('the client leaves while the gateway waits', () => {
  it('stops polling and subscribing, leaves the task running, and logs the task id', async () => {
    const peer = await startPeerV1({ slowMs: 4000 });
    cleanups.push(() => peer.close());
    const lines: string[] = [];
    const logger = pino(
      { level: 'info' },
      new Writable({ write: (chunk, _e, done) => (lines.push(String(chunk)), done()) }),
    );
    const rec = recorder();
    const config = parseConfig(
      JSON.stringify({
        listen: { port: 0 },
        admin: { listen: { port: 0 } },
        agents: {
          a: {
            url: peer.url,
            timeoutRescue: {
              enabled: true,
              clientTimeout: '30s',
              strategy: 'subscribe',
              pollInitial: '50ms',
              pollMax: '50ms',
            },
          },
        },
      }),
      'test',
      {},
    );
    const gateway = await startGateway(config, { logger, observers: [rec.observer] });
    cleanups.push(() => gateway.close());

    const client = new AbortController();
    const pending = request(`${gateway.url}/agents/a/a2a/jsonrpc`, {
      method: 'POST',
      headers,
      body: rpcSend('slow leaving'),
      signal: client.signal,
    });
    await new Promise((r) => setTimeout(r, 400)); // the gateway is now subscribed and waiting
    client.abort();
    await expect(pending).rejects.toThrow();
    for (let i = 0; i < 50 && !rec.records.some((r) => r.rescue); i++) await new Promise((r) => setTimeout(r, 20));

    const record = rec.records.find((r) => r.rescue)!;
    expect(record.outcome).toBe('client-gone');
    expect(record.error?.reason).toBe('CLIENT_GONE');
    expect(record.rescue).toMatchObject({ outcome: 'client-gone', taskId: expect.any(String) });
    logger.flush();
    const line = lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'exchange' && l.outcome === 'client-gone');
    expect(line.taskId).toBe(record.rescue!.taskId);

    // Nothing is left running for this exchange: no request to the agent in flight, no more calls.
    const exchange = rec.exchanges.find((e) => e.record === record)!;
    await new Promise((r) => setTimeout(r, 200));
    expect(exchange.replica!.pool.stats.running).toBe(0);
    const seen = peer.requests.length;
    await new Promise((r) => setTimeout(r, 300));
    expect(peer.requests.length).toBe(seen);
    // The agent's task was not canceled: it completes on its own.
    const task = await (
      await fetch(`${peer.url}/a2a/jsonrpc`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'GetTask', params: { id: record.rescue!.taskId } }),
      })
    ).json();
    expect((task as any).result.status.state).not.toBe('TASK_STATE_CANCELED');
  });
});
