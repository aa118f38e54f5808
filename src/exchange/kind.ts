/**
 * The shape of a finished exchange — message, task, error or other — as the metrics' `kind`
 * label (src/telemetry/metrics/labels.ts) and the console (src/console/stats.ts) both count it:
 * one closed classification, pure, beside the record it reads.
 */
import { EXCHANGE_KINDS, type A2AFacts, type ExchangeKind } from './record.js';

const KINDS: ReadonlySet<string> = new Set(EXCHANGE_KINDS);

/** `message`, `task`, `error`, or `other` (no A2A facts, or a value outside the closed set). */
export function exchangeKind(a2a: A2AFacts | undefined): ExchangeKind {
  const kind = a2a?.kind;
  return kind !== undefined && KINDS.has(kind) ? kind : 'other';
}
