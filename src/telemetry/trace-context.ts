/**
 * W3C Trace Context (https://www.w3.org/TR/trace-context/) between the caller, the gateway and the
 * agent: read `traceparent`/`tracestate` from the client's request, write the gateway's own into
 * the upstream header list, and give the access log the trace id of an exchange.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { ROOT_CONTEXT, trace, type Context, type SpanContext, type TextMapGetter, type TextMapSetter } from '@opentelemetry/api';
import { TRACE_PARENT_HEADER, TRACE_STATE_HEADER, W3CTraceContextPropagator, parseTraceParent } from '@opentelemetry/core';
import type { Exchange } from '../proxy/exchange.js';

const propagator = new W3CTraceContextPropagator();

const incomingGetter: TextMapGetter<IncomingHttpHeaders> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => carrier[key],
};

/** The upstream header list is flat: [name, value, name, value, …] (undici's raw form). */
const upstreamSetter: TextMapSetter<string[]> = {
  set: (carrier, key, value) => carrier.push(key, value),
};

/** The caller's trace context (ROOT_CONTEXT when it sent none or an invalid one). */
export function extractIncoming(headers: IncomingHttpHeaders): Context {
  return propagator.extract(ROOT_CONTEXT, headers, incomingGetter);
}

/**
 * Replaces any `traceparent`/`tracestate` the caller sent with those of `span`: the agent's
 * parent is the gateway's client span, not the caller's span (W3C Trace Context §3).
 */
export function injectUpstream(headers: string[], span: SpanContext): void {
  for (let i = headers.length - 2; i >= 0; i -= 2) {
    const name = headers[i]!.toLowerCase();
    if (name === TRACE_PARENT_HEADER || name === TRACE_STATE_HEADER) headers.splice(i, 2);
  }
  propagator.inject(trace.setSpanContext(ROOT_CONTEXT, span), headers, upstreamSetter);
}

/** Per-exchange key under which tracing keeps the exchange's trace id (see `traceIdOf`). */
export const TRACE_ID_KEY: object = Object.freeze({ key: 'a2a-gateway.trace-id' });

/**
 * The trace id to log with an exchange: the gateway's span's when tracing is on, else the one
 * the caller sent (so logs still join the caller's traces), else undefined.
 */
export function traceIdOf(exchange: Exchange): string | undefined {
  const own = exchange.state.get(TRACE_ID_KEY);
  if (typeof own === 'string') return own;
  const header = exchange.req.headers[TRACE_PARENT_HEADER];
  const parsed = parseTraceParent(Array.isArray(header) ? (header[0] ?? '') : (header ?? ''));
  return parsed ? parsed.traceId : undefined;
}
