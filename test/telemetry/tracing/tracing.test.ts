/**
 * The real OTLP/HTTP exporter sends the gateway's spans to a receiver on loopback while a real
 * SDK 1.3.0 agent and the SDK's client (or a plain fetch carrying a caller's traceparent) talk
 * through the gateway.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPeerV1 } from '../../peers/peer-v1.js';
import type { Peer } from '../../peers/peer-common.js';
import { clientV1, sendRequestV1, userMessageV1 } from '../../peers/clients.js';
import { collect, within, withDeadline } from '../../peers/deadline.js';
import { asTask } from '../../peers/inspect.js';
import { startTestGateway } from '../../support/gateway.js';
import type { RunningGateway } from '../../../src/gateway/gateway.js';
import { createTracing, type Tracing } from '../../../src/telemetry/tracing/tracing.js';
import { tracingOptionsFromEnv } from '../../../src/telemetry/tracing/tracing-config.js';
import { traceIdOf } from '../../../src/telemetry/tracing/trace-context.js';
import type { ExchangeObserver } from '../../../src/exchange/exchange.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver.js';

const SERVER = 2;
const CLIENT = 3;
const ERROR = 2;

let peer: Peer;
let receiver: OtlpReceiver;
let tracing: Tracing;
let gateway: RunningGateway;
/** What an access log placed after the tracing observer would write: path → trace id. */
const logged: Array<{ path: string; traceId: string | undefined }> = [];
const logProbe: ExchangeObserver = {
  onFinish: (exchange) => void logged.push({ path: exchange.record.path, traceId: traceIdOf(exchange) }),
};

beforeAll(async () => {
  [peer, receiver] = await Promise.all([startPeerV1({ stepMs: 20 }), startOtlpReceiver()]);
  const { options } = tracingOptionsFromEnv({
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_SERVICE_NAME: 'gw-under-test',
  });
  tracing = createTracing(options, { serviceVersion: '9.9.9' });
  gateway = await startTestGateway({ reviewer: { url: peer.url }, gone: { url: 'http://127.0.0.1:1' } }, {}, [
    tracing.observer,
    logProbe,
  ]);
});

afterAll(async () => {
  await gateway?.close();
  await tracing?.shutdown();
  await Promise.all([peer?.close(), receiver?.close()]);
});

/** Exports what the gateway has finished and returns the spans received so far. */
async function flushed(): Promise<ReceivedSpan[]> {
  await withDeadline(tracing.forceFlush(), 5000, 'span export');
  return receiver.spans;
}

function one(spans: ReceivedSpan[], what: string, pred: (s: ReceivedSpan) => boolean): ReceivedSpan {
  const hits = spans.filter(pred);
  expect(hits, what).toHaveLength(1);
  return hits[0]!;
}

/** The traceparent the agent received on the request whose body contained `marker`. */
function agentTraceparent(since: number): string | undefined {
  const seen = peer.requests.slice(since).filter((r) => r.method === 'POST');
  expect(seen).toHaveLength(1);
  const value = seen[0]!.headers['traceparent'];
  return Array.isArray(value) ? value[0] : value;
}

/** A JSON-RPC question through `gatewayUrl` carrying the caller's `traceparent`; the answer. */
async function askWithTraceparent(
  gatewayUrl: string,
  traceparent: string,
  messageId = randomUUID(),
  tracestate?: string,
) {
  const res = await fetch(`${gatewayUrl}/agents/reviewer/a2a/jsonrpc`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'a2a-version': '1.0',
      traceparent,
      ...(tracestate ? { tracestate } : {}),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: { tenant: 'acme', message: { messageId, role: 'ROLE_USER', parts: [{ text: 'what is 6x7?' }] } },
    }),
    signal: AbortSignal.timeout(5000),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { result: { message: { messageId: string; contextId: string } } };
}

describe('spans over OTLP/HTTP', () => {
  it('a message exchange continues the caller trace: server span, client span, traceparent to the agent', async () => {
    const callerTrace = randomUUID().replace(/-/g, '');
    const callerSpan = callerTrace.slice(0, 16);
    const messageId = randomUUID();
    const since = peer.requests.length;
    const answer = await askWithTraceparent(gateway.url, `00-${callerTrace}-${callerSpan}-01`, messageId, 'caller=1');
    const spans = (await flushed()).filter((s) => s.traceId === callerTrace);

    const server = one(spans, 'server span', (s) => s.kind === SERVER);
    expect(server.name).toBe('SendMessage');
    expect(server.parentSpanId).toBe(callerSpan);
    expect(server.attributes).toMatchObject({
      'a2a.method.name': 'SendMessage',
      'a2a.protocol.version': '1.0',
      'a2a.gateway.kind': 'message',
      'gen_ai.agent.name': 'reviewer',
      'gen_ai.conversation.id': answer.result.message.contextId,
      'a2a.tenant': 'acme',
      'a2a.gateway.outcome': 'complete',
      'http.response.status_code': 200,
    });
    expect([messageId, answer.result.message.messageId]).toContain(server.attributes['a2a.message.id']);
    expect(server.attributes['a2a.task.id']).toBeUndefined();
    expect(server.attributes['error.type']).toBeUndefined();
    expect(server.resource).toMatchObject({ 'service.name': 'gw-under-test', 'service.version': '9.9.9' });

    const client = one(spans, 'client span', (s) => s.kind === CLIENT);
    expect(client.name).toBe('SendMessage');
    expect(client.parentSpanId).toBe(server.spanId);
    expect(client.attributes).toMatchObject({
      'server.address': '127.0.0.1',
      'server.port': peer.port,
      'gen_ai.agent.name': 'reviewer',
      'http.response.status_code': 200,
    });
    expect(client.startNs >= server.startNs && client.endNs <= server.endNs).toBe(true);

    expect(agentTraceparent(since)).toBe(`00-${callerTrace}-${client.spanId}-01`);
  });

  it('a task exchange starts a trace and carries the task id and final state', async () => {
    const client = await withDeadline(
      clientV1(`${gateway.url}/agents/reviewer/`, { transport: 'HTTP+JSON' }),
      5000,
      'card',
    );
    const since = peer.requests.length;
    const task = asTask(await client.sendMessage(sendRequestV1(userMessageV1('process this')), within(5000)));
    const spans = await flushed();

    const server = one(spans, 'server span', (s) => s.kind === SERVER && s.attributes['a2a.task.id'] === task.id);
    expect(server.name).toBe('SendMessage');
    expect(server.parentSpanId).toBe('');
    expect(server.attributes).toMatchObject({
      'a2a.method.name': 'SendMessage',
      'a2a.protocol.version': '1.0',
      'a2a.gateway.kind': 'task',
      'a2a.gateway.binding': 'rest',
      'a2a.task.state': 'TASK_STATE_COMPLETED',
      'gen_ai.conversation.id': task.contextId,
      'gen_ai.agent.name': 'reviewer',
    });
    // A unary answer: the state is known only when the body ends, and still becomes an event.
    expect(server.events.map((e) => [e.name, e.attributes['a2a.task.state']])).toEqual([
      ['a2a.task.state_change', 'TASK_STATE_COMPLETED'],
    ]);
    const clientSpan = one(spans, 'client span', (s) => s.kind === CLIENT && s.parentSpanId === server.spanId);
    expect(clientSpan.traceId).toBe(server.traceId);
    expect(agentTraceparent(since)).toBe(`00-${server.traceId}-${clientSpan.spanId}-01`);
  });

  it('a stream gets one span event per stream event and per state change, and ends with the stream', async () => {
    const client = await withDeadline(
      clientV1(`${gateway.url}/agents/reviewer/`, { transport: 'JSONRPC' }),
      5000,
      'card',
    );
    const events = await collect(
      client.sendMessageStream(sendRequestV1(userMessageV1('stream this')), within(5000)),
      5000,
      'stream',
    );
    const taskId = events[0]?.payload?.$case === 'task' ? events[0].payload.value.id : undefined;
    expect(taskId).toBeDefined();
    const spans = await flushed();

    const server = one(
      spans,
      'stream span',
      (s) => s.kind === SERVER && s.name === 'SendStreamingMessage' && s.attributes['a2a.task.id'] === taskId,
    );
    expect(server.attributes).toMatchObject({
      'a2a.method.name': 'SendStreamingMessage',
      'a2a.gateway.kind': 'task',
      'a2a.task.state': 'TASK_STATE_COMPLETED',
      'a2a.gateway.stream.events': 5,
    });
    const streamEvents = server.events
      .filter((e) => e.name === 'a2a.stream.event')
      .map((e) => e.attributes['a2a.gateway.stream.event']);
    expect(streamEvents.sort()).toEqual(['artifactUpdate', 'artifactUpdate', 'statusUpdate', 'statusUpdate', 'task']);
    const states = server.events
      .filter((e) => e.name === 'a2a.task.state_change')
      .map((e) => e.attributes['a2a.task.state']);
    expect(states.at(-1)).toBe('TASK_STATE_COMPLETED');
    for (const e of server.events) expect(e.timeNs <= server.endNs).toBe(true);
    one(spans, 'client span', (s) => s.kind === CLIENT && s.parentSpanId === server.spanId);
  });

  it('an unreachable agent marks both spans as errors with the gateway reason', async () => {
    const res = await fetch(`${gateway.url}/agents/gone/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 'x', method: 'GetTask', params: { id: 'nope' } }),
      signal: AbortSignal.timeout(5000),
    });
    expect(res.status).toBe(502);
    const spans = await flushed();
    const server = one(spans, 'server span', (s) => s.kind === SERVER && s.attributes['gen_ai.agent.name'] === 'gone');
    expect(server.status.code).toBe(ERROR);
    expect(server.attributes).toMatchObject({
      'error.type': 'UPSTREAM_UNREACHABLE',
      'a2a.gateway.outcome': 'upstream-error',
      'http.response.status_code': 502,
    });
    const client = one(spans, 'client span', (s) => s.kind === CLIENT && s.parentSpanId === server.spanId);
    expect(client.status.code).toBe(ERROR);
    expect(client.attributes['error.type']).toBe('UPSTREAM_UNREACHABLE');
  });

  it("carries the caller's principal as enduser.id, and why access control refused a call", async () => {
    const key = 'planner-key-0123456789';
    const locked = await startTestGateway(
      { reviewer: { url: peer.url } },
      { auth: { apiKeys: { planner: { key } } } },
      [tracing.observer],
    );
    const traces = [randomUUID().replace(/-/g, ''), randomUUID().replace(/-/g, '')];
    try {
      const credentials: Record<string, string>[] = [{ 'x-api-key': key }, {}];
      for (const [i, traceId] of traces.entries()) {
        const res = await fetch(`${locked.url}/agents/reviewer/a2a/jsonrpc`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'a2a-version': '1.0',
            traceparent: `00-${traceId}-${traceId.slice(0, 16)}-01`,
            ...credentials[i],
          },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'SendMessage',
            params: { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'what is 6x7?' }] } },
          }),
          signal: AbortSignal.timeout(5000),
        });
        expect(res.status).toBe(i === 0 ? 200 : 401);
        await res.text();
      }
    } finally {
      await locked.close();
    }
    const spans = await flushed();
    const [admitted, refused] = traces.map((t) =>
      one(spans, `server span of ${t}`, (s) => s.traceId === t && s.kind === SERVER),
    );
    expect(admitted!.attributes['enduser.id']).toBe('planner');
    expect(admitted!.attributes['a2a.gateway.access.denied']).toBeUndefined();
    expect(
      one(spans, 'client span', (s) => s.traceId === traces[0] && s.kind === CLIENT).attributes['enduser.id'],
    ).toBeUndefined();
    expect(refused!.attributes).toMatchObject({
      'a2a.gateway.access.denied': 'missing',
      'error.type': 'UNAUTHENTICATED',
      'http.response.status_code': 401,
    });
    expect(refused!.attributes['enduser.id']).toBeUndefined();
  });

  it('gives the access log the trace id of each exchange, card requests included', async () => {
    const card = await fetch(`${gateway.url}/agents/reviewer/.well-known/agent-card.json`, {
      signal: AbortSignal.timeout(5000),
    });
    expect(card.status).toBe(200);
    await card.text();
    const spans = await flushed();
    const cardLine = logged.findLast((l) => l.path === '/.well-known/agent-card.json')!;
    const cardSpan = one(spans, 'card span', (s) => s.traceId === cardLine.traceId);
    expect(cardSpan).toMatchObject({ name: 'AgentCard', kind: SERVER });
    const servers = spans.filter((s) => s.kind === SERVER);
    for (const line of logged)
      expect(
        servers.map((s) => s.traceId),
        line.path,
      ).toContain(line.traceId);
  });

  it('follows an unsampled caller: nothing exported, the agent gets the gateway span id with flags 00', async () => {
    const callerTrace = randomUUID().replace(/-/g, '');
    const since = peer.requests.length;
    await askWithTraceparent(gateway.url, `00-${callerTrace}-${callerTrace.slice(0, 16)}-00`);
    const spans = await flushed();
    expect(spans.filter((s) => s.traceId === callerTrace)).toEqual([]);
    const sent = agentTraceparent(since)!;
    expect(sent).toMatch(new RegExp(`^00-${callerTrace}-[0-9a-f]{16}-00$`));
    expect(sent.split('-')[2]).not.toBe(callerTrace.slice(0, 16));
    expect(logged.at(-1)?.traceId).toBe(callerTrace);
  });

  it('exports as OTLP/HTTP JSON to {endpoint}/v1/traces, introducing itself', () => {
    expect(receiver.requests.length).toBeGreaterThan(0);
    for (const r of receiver.requests) {
      expect(r).toMatchObject({ path: '/v1/traces', contentType: 'application/json' });
      expect(r.headers['user-agent']).toMatch(/^a2a-gateway\/9\.9\.9 OTel-OTLP-Exporter-JavaScript\//);
    }
  });
});

describe('spans over OTLP/HTTP protobuf (OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf)', () => {
  it('exports the same spans, as application/x-protobuf', async () => {
    const protoReceiver = await startOtlpReceiver();
    const { options } = tracingOptionsFromEnv({
      OTEL_EXPORTER_OTLP_ENDPOINT: protoReceiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      OTEL_SERVICE_NAME: 'gw-proto',
    });
    const protoTracing = createTracing(options, { serviceVersion: '9.9.9' });
    const gw = await startTestGateway({ reviewer: { url: peer.url } }, {}, [protoTracing.observer]);
    try {
      const callerTrace = randomUUID().replace(/-/g, '');
      const since = peer.requests.length;
      await askWithTraceparent(gw.url, `00-${callerTrace}-${callerTrace.slice(0, 16)}-01`);
      await withDeadline(protoTracing.forceFlush(), 5000, 'span export');
      const spans = protoReceiver.spans.filter((s) => s.traceId === callerTrace);
      const server = one(spans, 'server span', (s) => s.kind === SERVER);
      expect(server).toMatchObject({
        name: 'SendMessage',
        parentSpanId: callerTrace.slice(0, 16),
        scope: 'a2a-gateway',
      });
      expect(server.attributes).toMatchObject({
        'a2a.method.name': 'SendMessage',
        'a2a.gateway.kind': 'message',
        'gen_ai.agent.name': 'reviewer',
        'http.response.status_code': 200,
      });
      expect(server.resource).toMatchObject({ 'service.name': 'gw-proto', 'service.version': '9.9.9' });
      const client = one(spans, 'client span', (s) => s.kind === CLIENT);
      expect(client.parentSpanId).toBe(server.spanId);
      expect(client.startNs >= server.startNs && client.endNs <= server.endNs).toBe(true);
      expect(agentTraceparent(since)).toBe(`00-${callerTrace}-${client.spanId}-01`);
      for (const r of protoReceiver.requests)
        expect(r).toMatchObject({ path: '/v1/traces', contentType: 'application/x-protobuf' });
    } finally {
      await gw.close();
      await protoTracing.shutdown();
      await protoReceiver.close();
    }
  });
});
