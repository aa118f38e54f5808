/**
 * The shape of a finished exchange as the console counts it: the same closed classification as
 * the metrics' `kind` label (src/telemetry/metrics/labels.ts `kind`), kept here as pure logic so
 * the console (src/console/) need not import telemetry or prom-client.
 */
import { EXCHANGE_KINDS, type A2AFacts, type ExchangeKind } from './record.js';

const KINDS: ReadonlySet<string> = new Set(EXCHANGE_KINDS);

/** `message`, `task`, `error`, or `other` (no A2A facts, or a value outside the closed set). */
export function exchangeKind(a2a: A2AFacts | undefined): ExchangeKind {
  const kind = a2a?.kind;
  return kind !== undefined && KINDS.has(kind) ? kind : 'other';
}
