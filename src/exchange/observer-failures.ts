/**
 * Logs observers that throw, at most once per observer and hook every `intervalMs`, with a count
 * of the failures in between: a broken observer fails on every exchange, and a log line per
 * exchange would cost more than the traffic itself.
 */
import type { ExchangeObserver, ObserverFailureSink, ObserverHook } from './exchange.js';

export interface FailureLog {
  error(fields: Record<string, unknown>, message: string): void;
}

const OBSERVER_REPORT_INTERVAL_MS = 10_000;

export function observerFailureLog(
  log: FailureLog,
  intervalMs = OBSERVER_REPORT_INTERVAL_MS,
  now: () => number = Date.now,
): ObserverFailureSink {
  const last = new Map<string, { at: number; unreported: number }>();
  return (observer: ExchangeObserver, hook: ObserverHook, error: unknown) => {
    const name = observer.name ?? 'observer';
    const key = `${name}\0${hook}`;
    const seen = last.get(key);
    const at = now();
    if (seen && at - seen.at < intervalMs) {
      seen.unreported++;
      return;
    }
    const unreported = seen?.unreported ?? 0;
    last.set(key, { at, unreported: 0 });
    const err = error instanceof Error ? error : new Error(String(error));
    log.error(
      { observer: name, hook, err, ...(unreported > 0 ? { unreported } : {}) },
      'an exchange observer failed; the exchange went on unchanged',
    );
  };
}
