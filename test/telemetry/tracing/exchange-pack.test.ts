import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { packExchange, unpackExchange, type ExchangeTrace } from '../../../src/telemetry/tracing/exchange-pack.js';
import { OPERATIONS } from '../../../src/a2a/operations.js';
import { TASK_STATES } from '../../../src/a2a/task-state.js';
import { RULE_IDS } from '../../../src/a2a/findings.js';
import {
  ACCESS_DENIALS,
  PUSH_REFUSALS,
  type A2AFacts,
  type AccessFacts,
  type ExchangeRecord,
} from '../../../src/exchange/record.js';
import { record } from '../support/records.js';
import { recordInMemory } from '../support/spans.js';

const hex = (length: number) =>
  fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: length, maxLength: length });
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
const count = fc.nat({ max: 50 });

const a2aFacts: fc.Arbitrary<A2AFacts> = fc.record(
  {
    binding: fc.constantFrom('jsonrpc', 'rest'),
    version: fc.constantFrom('1.0', '0.3'),
    operation: fc.constantFrom(...OPERATIONS),
    kind: fc.constantFrom('message', 'task', 'error', 'other'),
    taskId: fc.string(),
    contextId: fc.string(),
    messageId: fc.string(),
    state: fc.constantFrom(...TASK_STATES),
    blocking: fc.boolean(),
    error: fc.record({ code: maybe(fc.integer()), reason: maybe(fc.string()), message: maybe(fc.string()) }),
    stream: fc.record({
      events: fc.record({ task: count, message: count, statusUpdate: count, artifactUpdate: count, error: count }),
      agentKeepalives: count,
    }),
    partial: fc.boolean(),
  },
  { requiredKeys: ['binding', 'version', 'operation', 'kind', 'partial'] },
) as fc.Arbitrary<A2AFacts>;

const accessFacts: fc.Arbitrary<AccessFacts> = fc.record(
  {
    principal: fc.string(),
    denied: fc.constantFrom(...ACCESS_DENIALS),
    rateLimited: fc.boolean(),
    pushRefused: fc.constantFrom(...PUSH_REFUSALS),
  },
  { requiredKeys: [] },
);

const exchangeRecord: fc.Arbitrary<ExchangeRecord> = fc
  .record({
    agent: fc.string({ minLength: 1 }),
    httpMethod: fc.constantFrom('GET', 'POST', 'DELETE'),
    status: fc.constantFrom(0, 200, 404, 502),
    outcome: fc.constantFrom('complete', 'client-gone', 'upstream-error', 'gateway-error'),
    error: maybe(fc.record({ reason: fc.string(), message: fc.string() })),
    a2a: maybe(a2aFacts),
    access: maybe(accessFacts),
    rules: fc.array(fc.constantFrom(...RULE_IDS), { maxLength: 3 }),
  })
  .map(({ rules, ...fields }) => record({ ...fields, findings: rules.map((rule) => ({ rule, count: 1 })) }));

const exchangeTrace: fc.Arbitrary<ExchangeTrace> = fc.record({
  traceId: hex(32),
  serverSpanId: hex(16),
  parent: maybe(
    fc.record({
      traceId: hex(32),
      spanId: hex(16),
      traceFlags: fc.constantFrom(0, 1),
      traceState: maybe(fc.constantFrom('vendor=abc', 'a=1,b=2')),
    }),
  ),
  startMs: fc.double({ min: 1.7e12, max: 1.8e12, noNaN: true }),
  endMs: fc.double({ min: 1.7e12, max: 1.8e12, noNaN: true }),
  urlPath: fc.string(),
  client: maybe(
    fc.record({
      spanId: hex(16),
      startMs: fc.double({ min: 1.7e12, max: 1.8e12, noNaN: true }),
      origin: fc.constantFrom('http://127.0.0.1:9101', 'https://agent.example'),
      path: fc.string(),
    }),
  ),
  events: fc.array(
    fc.record({
      name: fc.string(),
      attributes: fc.dictionary(fc.string(), fc.string()),
      time: fc.tuple(fc.nat(), fc.nat({ max: 999_999_999 })),
      droppedAttributesCount: fc.constant(0),
    }),
    { maxLength: 3 },
  ),
  eventsDropped: count,
});

/** Everything an exporter reads from a span. */
function exported(span: ReadableSpan) {
  return {
    name: span.name,
    kind: span.kind,
    context: { ...span.spanContext(), traceState: span.spanContext().traceState?.serialize() },
    parent: span.parentSpanContext && {
      ...span.parentSpanContext,
      traceState: span.parentSpanContext.traceState?.serialize(),
    },
    startTime: span.startTime,
    endTime: span.endTime,
    status: span.status,
    attributes: span.attributes,
    droppedAttributesCount: span.droppedAttributesCount,
    events: span.events,
    droppedEventsCount: span.droppedEventsCount,
  };
}

describe('exchanges packed for the export thread', () => {
  it('make the same spans as the exchange they were packed from', () => {
    const recordSpans = recordInMemory();
    fc.assert(
      fc.property(exchangeRecord, exchangeTrace, (rec, trace) => {
        // What crosses the thread boundary is a structured clone of the packed form.
        const unpacked = unpackExchange(structuredClone(packExchange(rec, trace)));
        const spans = recordSpans(unpacked).map(exported);
        expect(spans).toHaveLength(trace.client ? 2 : 1);
        expect(spans).toEqual(recordSpans({ record: rec, trace }).map(exported));
      }),
      { numRuns: 300 },
    );
  });
});
