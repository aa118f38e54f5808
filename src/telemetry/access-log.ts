/** The access log: one JSON line per finished exchange (README "Access log"). */
import type { ExchangeObserver } from '../proxy/exchange.js';
import type { Logger } from '../log.js';

export function accessLog(log: Logger): ExchangeObserver {
  return {
    onFinish(exchange) {
      const r = exchange.record;
      log.info(
        {
          agent: r.agent,
          httpMethod: r.httpMethod,
          path: r.path,
          status: r.status,
          durationMs: r.durationMs,
          bytesIn: r.bytesIn,
          bytesOut: r.bytesOut,
          outcome: r.outcome,
          ...(r.error ? { error: r.error } : {}),
        },
        'exchange',
      );
    },
  };
}
