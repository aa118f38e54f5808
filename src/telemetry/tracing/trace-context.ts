/**
 * W3C Trace Context (https://www.w3.org/TR/trace-context/) between the caller, the gateway and the
 * agent: read `traceparent`/`tracestate` from the client's request, write the gateway's own into
 * the upstream header list, and give the access log the trace id of an exchange.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { ROOT_CONTEXT, type Context, type SpanContext, type TextMapGetter } from '@opentelemetry/api';
import {
  TRACE_PARENT_HEADER,
  TRACE_STATE_HEADER,
  W3CTraceContextPropagator,
  parseTraceParent,
} from '@opentelemetry/core';
import type { Exchange } from '../../exchange/exchange.js';

const propagator = new W3CTraceContextPropagator();

const incomingGetter: TextMapGetter<IncomingHttpHeaders> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => carrier[key],
};

/** The caller's trace context (ROOT_CONTEXT when it sent none or an invalid one). */
export function extractIncoming(headers: IncomingHttpHeaders): Context {
  // Most callers send none: skip the propagator's context copies then.
  if (headers[TRACE_PARENT_HEADER] === undefined) return ROOT_CONTEXT;
  return propagator.extract(ROOT_CONTEXT, headers, incomingGetter);
}

/**
 * Replaces any `traceparent`/`tracestate` the caller sent with those of `span`: the agent's
 * parent is the gateway's client span, not the caller's span (W3C Trace Context §3).
 */
export function injectUpstream(headers: string[], span: SpanContext): void {
  // The list is flat, [name, value, name, value, …] (undici's raw form); names keep the caller's case.
  for (let i = headers.length - 2; i >= 0; i -= 2) {
    const name = headers[i]!;
    if (name.length !== TRACE_PARENT_HEADER.length && name.length !== TRACE_STATE_HEADER.length) continue;
    const lower = name.toLowerCase();
    if (lower === TRACE_PARENT_HEADER || lower === TRACE_STATE_HEADER) headers.splice(i, 2);
  }
  // Written as W3CTraceContextPropagator.inject writes them (version 00), without its context objects.
  headers.push(TRACE_PARENT_HEADER, `00-${span.traceId}-${span.spanId}-0${Number(span.traceFlags || 0).toString(16)}`);
  if (span.traceState) headers.push(TRACE_STATE_HEADER, span.traceState.serialize());
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
  const header = exchange.call.headers[TRACE_PARENT_HEADER];
  const parsed = parseTraceParent(Array.isArray(header) ? (header[0] ?? '') : (header ?? ''));
  return parsed ? parsed.traceId : undefined;
}
