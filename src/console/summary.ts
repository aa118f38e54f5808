/**
 * An exchange record as the console's feed and lists show it (src/console/api-types.ts
 * `ExchangeSummary`): the record's facts flattened, findings as rule ids. Built only when a
 * console is there to read it (feed.ts returns before this when none is connected).
 */
import type { ExchangeRecord } from '../exchange/record.js';
import { exchangeKind } from '../exchange/kind.js';
import type { ExchangeSummary } from './api-types.js';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

export function summarize(record: ExchangeRecord, traceId?: string): ExchangeSummary {
  const a2a = record.a2a;
  const summary: Mutable<ExchangeSummary> = {
    id: record.id,
    agent: record.agent,
    startedAt: record.startedAt,
    durationMs: record.durationMs,
    method: a2a?.operation ?? 'unknown',
    kind: exchangeKind(a2a),
    bytesIn: record.bytesIn,
    bytesOut: record.bytesOut,
    findings: record.findings.map((f) => f.rule),
    outcome: record.outcome,
  };
  if (a2a !== undefined) {
    summary.binding = a2a.binding;
    summary.version = a2a.version;
    if (a2a.taskId !== undefined) summary.taskId = a2a.taskId;
    if (a2a.contextId !== undefined) summary.contextId = a2a.contextId;
    if (a2a.tenant !== undefined) summary.tenant = a2a.tenant;
    if (a2a.state !== undefined) summary.state = a2a.state;
    if (a2a.stream !== undefined) summary.streamEvents = eventCount(a2a.stream.events);
  }
  if (record.status !== 0) summary.status = record.status;
  if (record.rescue !== undefined)
    summary.rescue =
      record.rescue.outcome === undefined
        ? { strategy: record.rescue.strategy }
        : { strategy: record.rescue.strategy, outcome: record.rescue.outcome };
  if (record.replica !== undefined) summary.replica = record.replica;
  if (record.idempotency !== undefined) summary.idempotency = record.idempotency.outcome;
  if (record.resume !== undefined) summary.resume = record.resume;
  const t = record.translation;
  if (t !== undefined) summary.translation = `${t.caller} → ${t.agent}: ${t.outcome}`;
  const trace = traceId ?? record.traceId;
  if (trace !== undefined) summary.traceId = trace;
  return summary;
}

function eventCount(events: Readonly<Record<string, number>>): number {
  let sum = 0;
  for (const kind in events) sum += events[kind]!;
  return sum;
}
