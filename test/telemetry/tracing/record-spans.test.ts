/**
 * The spans the export thread makes with the SDK's tracer from a finished exchange: the ids drawn on
 * the request thread, parent and child, times, attributes, events, status and the span limits.
 * End to end over OTLP in tracing.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { SpanKind, SpanStatusCode, TraceFlags } from '@opentelemetry/api';
import { hrTimeToMilliseconds, millisToHrTime } from '@opentelemetry/core';
import type { ExchangeTrace } from '../../../src/telemetry/tracing/exchange-pack.js';
import { facts, record } from '../support/records.js';
import { recordInMemory } from '../support/spans.js';

function ids(overrides: Partial<ExchangeTrace> = {}): ExchangeTrace {
  const now = Date.now();
  return {
    traceId: 'ab'.repeat(16),
    serverSpanId: 'cd'.repeat(8),
    parent: undefined,
    startMs: now - 2.5,
    endMs: now,
    urlPath: '/agents/reviewer/a2a/jsonrpc',
    client: undefined,
    events: [],
    eventsDropped: 0,
    ...overrides,
  };
}

const client = (trace: ExchangeTrace) => ({
  spanId: 'ef'.repeat(8),
  startMs: trace.startMs + 0.75,
  origin: 'http://127.0.0.1:9101',
  path: '/a2a/jsonrpc',
});

describe('the spans of a finished exchange', () => {
  it('keep the ids drawn on the request thread: a root server span and its client span, sampled', () => {
    const trace = ids();
    const [server, call] = recordInMemory()({
      record: record({ a2a: facts() }),
      trace: { ...trace, client: client(trace) },
    });
    expect(server!.spanContext()).toMatchObject({ traceId: trace.traceId, spanId: trace.serverSpanId });
    expect(call!.spanContext()).toMatchObject({ traceId: trace.traceId, spanId: 'ef'.repeat(8) });
    expect(server!.parentSpanContext).toBeUndefined();
    expect(call!.parentSpanContext).toMatchObject({ traceId: trace.traceId, spanId: trace.serverSpanId });
    for (const span of [server!, call!]) {
      expect(span.spanContext().traceFlags).toBe(TraceFlags.SAMPLED);
      expect(span.instrumentationScope).toMatchObject({ name: 'a2a-gateway', version: '0.1.0' });
      expect(span.resource.attributes['service.name']).toBe('gw');
    }
  });

  it("continue the caller's trace: its span is the remote parent, its tracestate carried on", () => {
    const parent = { traceId: '12'.repeat(16), spanId: '34'.repeat(8), traceFlags: 1, traceState: 'caller=1' };
    const trace = ids({ traceId: parent.traceId, parent });
    const [server, call] = recordInMemory()({ record: record(), trace: { ...trace, client: client(trace) } });
    expect(server!.parentSpanContext).toMatchObject({ traceId: parent.traceId, spanId: parent.spanId, isRemote: true });
    expect(server!.spanContext().traceId).toBe(parent.traceId);
    expect(call!.parentSpanContext?.spanId).toBe(trace.serverSpanId);
    expect(call!.parentSpanContext?.isRemote).toBeFalsy();
    for (const span of [server!, call!]) expect(span.spanContext().traceState?.serialize()).toBe('caller=1');
  });

  it('read the finished record: names, kinds, sub-millisecond times, attributes, status', () => {
    const rec = record({
      status: 502,
      outcome: 'upstream-error',
      error: { reason: 'UPSTREAM_UNREACHABLE', message: 'refused' },
      a2a: facts({ operation: 'GetTask', kind: 'error' }),
    });
    const trace = ids();
    const [server, call] = recordInMemory()({ record: rec, trace: { ...trace, client: client(trace) } });
    expect([server!.name, server!.kind, call!.name, call!.kind]).toEqual([
      'GetTask',
      SpanKind.SERVER,
      'GetTask',
      SpanKind.CLIENT,
    ]);
    expect(hrTimeToMilliseconds(server!.endTime) - hrTimeToMilliseconds(server!.startTime)).toBeCloseTo(2.5, 3);
    expect(hrTimeToMilliseconds(call!.startTime) - hrTimeToMilliseconds(server!.startTime)).toBeCloseTo(0.75, 3);
    expect(call!.endTime).toEqual(server!.endTime);
    expect(server!.attributes).toEqual({
      'gen_ai.agent.name': 'reviewer',
      'http.request.method': 'POST',
      'url.path': '/agents/reviewer/a2a/jsonrpc',
      'a2a.protocol.version': '1.0',
      'a2a.gateway.binding': 'jsonrpc',
      'a2a.gateway.kind': 'error',
      'a2a.gateway.partial': false,
      'a2a.method.name': 'GetTask',
      'a2a.gateway.outcome': 'upstream-error',
      'http.response.status_code': 502,
      'error.type': 'UPSTREAM_UNREACHABLE',
    });
    expect(call!.attributes).toEqual({
      'gen_ai.agent.name': 'reviewer',
      'http.request.method': 'POST',
      'server.address': '127.0.0.1',
      'server.port': 9101,
      'url.full': 'http://127.0.0.1:9101/a2a/jsonrpc',
      'a2a.method.name': 'GetTask',
      'error.type': 'UPSTREAM_UNREACHABLE',
    });
    expect(server!.status).toEqual({ code: SpanStatusCode.ERROR, message: 'refused' });
    expect(call!.status).toEqual({ code: SpanStatusCode.ERROR, message: 'refused' });
  });

  it('carry the caller as enduser.id and what access control refused, on the server span only', () => {
    const trace = ids();
    const [server, call] = recordInMemory()({
      record: record({ a2a: facts(), access: { principal: 'alice@example.com' } }),
      trace: { ...trace, client: client(trace) },
    });
    expect(server!.attributes['enduser.id']).toBe('alice@example.com');
    expect(Object.keys(server!.attributes).filter((k) => k.startsWith('a2a.gateway.access.'))).toEqual([]);
    expect(call!.attributes['enduser.id']).toBeUndefined();

    const [denied] = recordInMemory()({
      record: record({
        status: 401,
        outcome: 'gateway-error',
        error: { reason: 'UNAUTHENTICATED', message: 'the token has expired' },
        access: { denied: 'expired' },
      }),
      trace: ids(),
    });
    expect(denied!.attributes).toMatchObject({
      'a2a.gateway.access.denied': 'expired',
      'error.type': 'UNAUTHENTICATED',
      'http.response.status_code': 401,
    });
    expect(denied!.attributes['enduser.id']).toBeUndefined();

    const [limited] = recordInMemory()({
      record: record({
        status: 429,
        access: { principal: 'bob', rateLimited: true, pushRefused: 'push-url-address' },
      }),
      trace: ids(),
    });
    expect(limited!.attributes).toMatchObject({
      'enduser.id': 'bob',
      'a2a.gateway.access.rate_limited': true,
      'a2a.gateway.access.push_refused': 'push-url-address',
    });
  });

  it('carry the span events noted on the request thread, at their own times, and count the dropped ones', () => {
    const trace = ids({
      events: [
        { name: 'a2a.stream.event', attributes: { 'a2a.gateway.stream.event': 'task' }, time: millisToHrTime(1.5e12) },
        {
          name: 'a2a.task.state_change',
          attributes: { 'a2a.task.state': 'TASK_STATE_WORKING' },
          time: millisToHrTime(1.5e12 + 0.25),
          droppedAttributesCount: 0,
        },
      ],
      eventsDropped: 7,
    });
    const [server] = recordInMemory()({ record: record(), trace });
    expect(server!.events).toEqual([
      {
        name: 'a2a.stream.event',
        attributes: { 'a2a.gateway.stream.event': 'task' },
        time: millisToHrTime(1.5e12),
        droppedAttributesCount: 0,
      },
      {
        name: 'a2a.task.state_change',
        attributes: { 'a2a.task.state': 'TASK_STATE_WORKING' },
        time: millisToHrTime(1.5e12 + 0.25),
        droppedAttributesCount: 0,
      },
    ]);
    expect(server!.attributes['a2a.gateway.span_events_dropped']).toBe(7);
    expect(server!.status).toEqual({ code: SpanStatusCode.UNSET });
  });

  it('apply the span limits: attributes past the count are dropped and counted, long strings cut', () => {
    const [server] = recordInMemory({ attributeCount: 2, attributeValueLength: 4 })({
      record: record({ a2a: facts() }),
      trace: ids(),
    });
    expect(server!.attributes).toEqual({ 'gen_ai.agent.name': 'revi', 'http.request.method': 'POST' });
    expect(server!.droppedAttributesCount).toBe(8);
    // Strings inside arrays too.
    const [withFindings] = recordInMemory({ attributeValueLength: 6 })({
      record: record({ findings: [{ rule: 'a2a.stream-first-event', count: 1 }] }),
      trace: ids(),
    });
    expect(withFindings!.attributes['a2a.gateway.findings']).toEqual(['a2a.st']);
    expect(withFindings!.droppedAttributesCount).toBe(0);
  });
});
