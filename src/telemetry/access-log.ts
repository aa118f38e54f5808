/** The access log: one JSON line per finished exchange (docs/operations.md "Access log"). */
import type { ExchangeObserver } from '../exchange/exchange.js';
import type { Logger } from '../log.js';
import { traceIdOf } from './tracing/trace-context.js';

export function accessLog(log: Logger): ExchangeObserver {
  return {
    name: 'access-log',
    onFinish(exchange) {
      const r = exchange.record;
      const a = r.a2a;
      log.info(
        {
          agent: r.agent,
          method: a?.operation ?? 'unknown',
          binding: a?.binding,
          version: a?.version,
          kind: a?.kind ?? 'other',
          // A client that left while the gateway waited never saw the task id: the log keeps it.
          taskId: a?.taskId ?? r.rescue?.taskId,
          contextId: a?.contextId,
          messageId: a?.messageId,
          tenant: a?.tenant,
          state: a?.state,
          status: r.status,
          durationMs: r.durationMs,
          // Both kinds of keepalive, named apart: the agent's comments and the ones the gateway added.
          events: a?.stream
            ? {
                ...a.stream.events,
                firstEventMs: a.stream.firstEventMs,
                agentKeepalives: a.stream.agentKeepalives,
                gatewayKeepalives: r.gatewayKeepalives,
              }
            : undefined,
          findings: r.findings.map((f) => f.rule),
          a2aError: a?.error,
          traceId: traceIdOf(exchange),
          rescue: r.rescue,
          replica: r.replica,
          idempotency: r.idempotency?.outcome,
          resume: r.resume,
          translation: r.translation,
          httpMethod: r.httpMethod,
          path: r.path,
          bytesIn: r.bytesIn,
          bytesOut: r.bytesOut,
          outcome: r.outcome,
          ...(r.error ? { error: r.error } : {}),
          // Who called and what access control refused, named one by one so that a field added
          // to the facts later reaches the log only by choice (pino leaves out undefined keys).
          principal: r.access?.principal,
          denied: r.access?.denied,
          rateLimited: r.access?.rateLimited,
          pushRefused: r.access?.pushRefused,
        },
        'exchange',
      );
    },
  };
}
