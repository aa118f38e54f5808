import { describe, expect, it } from 'vitest';
import { SpanKind, SpanStatusCode, TraceFlags } from '@opentelemetry/api';
import { hrTimeToMilliseconds } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  ClientSpanView,
  ServerSpanView,
  limitAttributes,
  type ExchangeTrace,
  type SpanSource,
} from '../../../src/telemetry/tracing/exchange-spans.js';
import { facts, record } from '../support/records.js';

const source = (attributeCount = 128, attributeValueLength = Infinity): SpanSource => ({
  resource: resourceFromAttributes({ 'service.name': 'gw' }),
  instrumentationScope: { name: 'a2a-gateway', version: '0.1.0' },
  limits: { attributeCount, attributeValueLength },
});

function ids(overrides: Partial<ExchangeTrace> = {}): ExchangeTrace {
  const now = Date.now();
  return {
    traceId: 'ab'.repeat(16),
    serverSpanId: 'cd'.repeat(8),
    parent: undefined,
    traceFlags: TraceFlags.SAMPLED,
    traceState: undefined,
    startMs: now - 2.5,
    endMs: now,
    urlPath: '/agents/reviewer/a2a/jsonrpc',
    client: undefined,
    events: [],
    eventsDropped: 0,
    ...overrides,
  };
}

describe('exchange span views', () => {
  it('read the finished record: names, kinds, parents, sub-millisecond times, attributes, status', () => {
    const rec = record({
      status: 502,
      outcome: 'upstream-error',
      error: { reason: 'UPSTREAM_UNREACHABLE', message: 'refused' },
      a2a: facts({ operation: 'GetTask', kind: 'error' }),
    });
    const trace = ids();
    const client = {
      spanId: 'ef'.repeat(8),
      startMs: trace.startMs + 0.75,
      origin: 'http://127.0.0.1:9101',
      path: '/a2a/jsonrpc',
    };
    const server = new ServerSpanView(source(), { record: rec, trace });
    const call = new ClientSpanView(source(), { record: rec, trace }, client);
    expect([server.name, server.kind, call.name, call.kind]).toEqual([
      'GetTask',
      SpanKind.SERVER,
      'GetTask',
      SpanKind.CLIENT,
    ]);
    expect(call.parentSpanContext).toMatchObject({ traceId: trace.traceId, spanId: trace.serverSpanId });
    expect(server.parentSpanContext).toBeUndefined();
    expect(hrTimeToMilliseconds(server.endTime) - hrTimeToMilliseconds(server.startTime)).toBeCloseTo(2.5, 3);
    expect(hrTimeToMilliseconds(call.startTime) - hrTimeToMilliseconds(server.startTime)).toBeCloseTo(0.75, 3);
    expect(server.attributes).toMatchObject({
      'a2a.method.name': 'GetTask',
      'error.type': 'UPSTREAM_UNREACHABLE',
      'url.path': '/agents/reviewer/a2a/jsonrpc',
      'http.response.status_code': 502,
    });
    expect(call.attributes).toMatchObject({
      'server.address': '127.0.0.1',
      'server.port': 9101,
      'url.full': 'http://127.0.0.1:9101/a2a/jsonrpc',
      'error.type': 'UPSTREAM_UNREACHABLE',
    });
    expect(server.status).toEqual({ code: SpanStatusCode.ERROR, message: 'refused' });
    expect(call.status).toEqual({ code: SpanStatusCode.ERROR, message: 'refused' });
  });

  it('apply the span limits: attributes past the count are dropped and counted, long strings cut', () => {
    const limited = limitAttributes(
      { a: 'abcdef', b: ['xyz123', 'q'], c: 3, d: true },
      { attributeCount: 3, attributeValueLength: 3 },
    );
    expect(limited).toEqual({ attributes: { a: 'abc', b: ['xyz', 'q'], c: 3 }, dropped: 1 });
    const view = new ServerSpanView(source(2, 4), { record: record({ a2a: facts() }), trace: ids() });
    expect(Object.keys(view.attributes)).toEqual(['gen_ai.agent.name', 'http.request.method']);
    expect(view.attributes['gen_ai.agent.name']).toBe('revi');
    expect(view.droppedAttributesCount).toBeGreaterThan(0);
  });
});
