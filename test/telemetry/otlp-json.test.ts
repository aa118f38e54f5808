/**
 * The gateway's OTLP/JSON span encoder against the SDK's own (`JsonTraceSerializer` from
 * @opentelemetry/otlp-transformer) as the oracle: for the same spans, the two documents must
 * parse to the same value. Spans come from the real SDK tracer (every field an SDK span can have)
 * and from the gateway's exchange views.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, TraceFlags, trace, type Attributes, type AttributeValue } from '@opentelemetry/api';
import { TraceState } from '@opentelemetry/core';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { OtlpJsonSpanSerializer } from '../../src/telemetry/otlp-json.js';
import { ClientSpanView, ServerSpanView, type ExchangeTrace, type SpanSource } from '../../src/telemetry/exchange-spans.js';
import { SpanEventRecorder } from '../../src/telemetry/span-facts.js';
import { facts, record } from './support/records.js';

const decode = (bytes: Uint8Array | undefined) => JSON.parse(new TextDecoder().decode(bytes)) as unknown;
const ours = (spans: ReadableSpan[]) => decode(OtlpJsonSpanSerializer.serializeRequest(spans));
const sdk = (spans: ReadableSpan[]) => decode(JsonTraceSerializer.serializeRequest(spans));

function sdkTracer(resource: Attributes = { 'service.name': 'svc' }, scope = { name: 'scope', version: '1.2.3', schemaUrl: undefined as string | undefined }) {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ resource: resourceFromAttributes(resource), spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { tracer: provider.getTracer(scope.name, scope.version, { schemaUrl: scope.schemaUrl }), exporter };
}

const awkward = ['', 'plain', 'only \\ a backslash', 'quote " backslash \\ slash /', 'line\nbreak\ttab\r\u0000\u001f', 'DEL\u007f', 'é ü ß', '日本語', 'emoji 🎉', 'lone \ud800 surrogate', '\u2028\u2029'];

describe('OTLP/JSON encoding equals the SDK serializer', () => {
  it('for SDK spans with every field: parents, trace state, links, events, statuses, odd values', () => {
    const { tracer, exporter } = sdkTracer({ 'service.name': 'svc', 'host.name': 'h"1', 'deployment.environment': 'ünïcode' });
    const remoteParent = trace.setSpanContext(ROOT_CONTEXT, {
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: 'b7ad6b7169203331',
      traceFlags: TraceFlags.SAMPLED,
      isRemote: true,
      traceState: new TraceState('vendor=a,other=b'),
    });
    const attrs: Attributes = {
      int: 42,
      negative: -7,
      zero: 0,
      big: 2 ** 53 + 2,
      double: 3.25,
      tiny: 1e-9,
      huge: 1e21,
      nan: Number.NaN,
      inf: Number.POSITIVE_INFINITY,
      yes: true,
      no: false,
      strings: awkward,
      numbers: [1, 2.5, -3],
      bools: [true, false],
      withHoles: ['a', null, undefined, 'b'] as unknown as AttributeValue,
    };
    awkward.forEach((s, i) => (attrs[`s${i}`] = s));
    const parent = tracer.startSpan('parent "op"', { kind: SpanKind.SERVER, attributes: attrs }, remoteParent);
    parent.addEvent('no attributes');
    parent.addEvent('with attributes', { k: 'v', n: 1.5, 'odd\nkey': awkward[3]! });
    parent.setStatus({ code: SpanStatusCode.ERROR, message: 'bad "thing"\n' });
    const child = tracer.startSpan(
      'child',
      {
        kind: SpanKind.CLIENT,
        links: [
          { context: { traceId: '1'.repeat(32), spanId: '2'.repeat(16), traceFlags: 1, isRemote: true, traceState: new TraceState('x=y') }, attributes: { why: 'because' } },
          { context: { traceId: '3'.repeat(32), spanId: '4'.repeat(16), traceFlags: 0 } },
        ],
      },
      trace.setSpan(ROOT_CONTEXT, parent),
    );
    child.setStatus({ code: SpanStatusCode.OK });
    child.end([1_700_000_000, 5]);
    parent.end();
    for (const kind of [SpanKind.INTERNAL, SpanKind.PRODUCER, SpanKind.CONSUMER]) tracer.startSpan(`kind ${kind}`, { kind }).end();
    const spans = exporter.getFinishedSpans();
    expect(spans.length).toBe(5);
    expect(ours(spans)).toEqual(sdk(spans));
  });

  it('groups by resource and by instrumentation scope as the SDK does', () => {
    const a = sdkTracer({ 'service.name': 'a' }, { name: 'one', version: '1', schemaUrl: 'https://opentelemetry.io/schemas/1.30.0' });
    const b = sdkTracer({ 'service.name': 'b' }, { name: 'two', version: undefined as unknown as string, schemaUrl: undefined });
    a.tracer.startSpan('a1').end();
    b.tracer.startSpan('b1').end();
    a.tracer.startSpan('a2').end();
    const spans = [...a.exporter.getFinishedSpans(), ...b.exporter.getFinishedSpans()];
    const doc = ours(spans) as { resourceSpans: unknown[] };
    expect(doc.resourceSpans).toHaveLength(2);
    expect(doc).toEqual(sdk(spans));
    expect(ours([])).toEqual(sdk([]));
  });

  it('for any attribute values (property)', () => {
    const { tracer, exporter } = sdkTracer();
    const scalar = fc.oneof(fc.string({ unit: 'binary' }), fc.integer(), fc.double(), fc.boolean());
    const value = fc.oneof(scalar, fc.array(fc.string({ unit: 'binary' }), { maxLength: 4 }), fc.array(fc.double(), { maxLength: 4 }));
    fc.assert(
      fc.property(fc.dictionary(fc.string({ unit: 'binary', minLength: 1, maxLength: 12 }), value, { maxKeys: 12 }), fc.string({ unit: 'binary' }), (attributes, name) => {
        exporter.reset();
        tracer.startSpan(name, { attributes }).end();
        const spans = exporter.getFinishedSpans();
        expect(ours(spans)).toEqual(sdk(spans));
      }),
      { numRuns: 300 },
    );
  });

  it('for the gateway exchange spans, server and client, with events and findings', () => {
    const source: SpanSource = {
      resource: resourceFromAttributes({ 'service.name': 'gw' }),
      instrumentationScope: { name: 'a2a-gateway', version: '0.1.0' },
      limits: { attributeCount: 128, attributeValueLength: Infinity },
    };
    const rec = record({
      status: 502,
      outcome: 'upstream-error',
      error: { reason: 'UPSTREAM_UNREACHABLE', message: 'agent "x" refused' },
      findings: [{ rule: 'a2a.stream-event-after-terminal', count: 2, detail: 'événement' }],
      a2a: facts({ operation: 'SendStreamingMessage', kind: 'task', taskId: 't-1', state: 'TASK_STATE_FAILED', stream: { events: { task: 1, message: 0, statusUpdate: 2, artifactUpdate: 0, error: 0 }, keepalives: 1 } }),
    });
    const events = new SpanEventRecorder(128);
    const now = Date.now();
    events.sync(rec, now);
    const ids: ExchangeTrace = {
      traceId: 'ab'.repeat(16),
      serverSpanId: 'cd'.repeat(8),
      parent: { traceId: 'ab'.repeat(16), spanId: 'ef'.repeat(8), traceFlags: 1, isRemote: true },
      traceFlags: TraceFlags.SAMPLED,
      traceState: new TraceState('caller=1'),
      startMs: now - 5.25,
      endMs: now,
      urlPath: '/agents/reviewer/a2a/jsonrpc',
      events,
    };
    const client = { spanId: '12'.repeat(8), startMs: now - 4.5, origin: 'http://127.0.0.1:9101', path: '/a2a/jsonrpc' };
    const spans = [new ServerSpanView(source, rec, ids), new ClientSpanView(source, rec, ids, client)];
    expect(ours(spans)).toEqual(sdk(spans));
    const [server] = (ours(spans) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<{ events: unknown[]; status: unknown }> }> }> }).resourceSpans[0]!.scopeSpans[0]!.spans;
    expect(server!.events).toHaveLength(5);
    expect(server!.status).toEqual({ code: 2, message: 'agent "x" refused' });
  });
});
