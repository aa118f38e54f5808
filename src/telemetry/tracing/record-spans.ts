/**
 * An exchange's two spans, made on the export thread by the SDK's own tracer from what the request
 * thread handed over (exchange-pack.ts). The SERVER span covers the whole exchange, from the
 * request's start until its body ended (principle 8), is named after the A2A operation and carries
 * the span events the request thread noted; the CLIENT span, its child, is the call to the agent.
 *
 * The ids are the ones drawn on the request thread (the agent already got the client span's id in
 * its `traceparent`): the tracer's IdGenerator hands out those of the span being started. Sampling
 * was decided there too, so this tracer samples everything. The SDK applies the span limits, to
 * event attributes as well. Span events the request thread's cap left out are counted in
 * `a2a.gateway.span_events_dropped`; the SDK's own `droppedEventsCount` counts only events it
 * dropped itself, so it is 0.
 */
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  createTraceState,
  trace,
  type Attributes,
  type SpanContext,
  type SpanStatus,
  type Tracer,
} from '@opentelemetry/api';
import { millisToHrTime } from '@opentelemetry/core';
import type { Resource } from '@opentelemetry/resources';
import {
  AlwaysOnSampler,
  BasicTracerProvider,
  type IdGenerator,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { STREAM_EVENT_KINDS, type AccessFacts } from '../../exchange/record.js';
import type { ClientCall, ExchangeTrace, FinishedExchange, RemoteParent } from './exchange-pack.js';
import { spanName, type SpanRecord } from './span-facts.js';
import * as A from './span-attributes.js';

export interface SpanRecorderOptions {
  readonly resource: Resource;
  /** Where the ended spans go (the BatchSpanProcessor on the export thread). */
  readonly spanProcessor: SpanProcessor;
  /** Given by tests; absent on the export thread, where the SDK reads OTEL_SPAN_* itself. */
  readonly limits?: SpanLimitOptions;
  /** The instrumentation scope's version. */
  readonly serviceVersion: string | undefined;
}

export interface SpanLimitOptions {
  readonly attributeCount: number;
  readonly attributeValueLength: number;
  readonly eventCount: number;
}

/** The ids drawn on the request thread for the span about to start. */
class DrawnIds implements IdGenerator {
  traceId = '';
  spanId = '';

  generateTraceId(): string {
    return this.traceId;
  }

  generateSpanId(): string {
    return this.spanId;
  }
}

/** A function that records each finished exchange's spans into `options.spanProcessor`. */
export function spanRecorder(options: SpanRecorderOptions): (finished: FinishedExchange) => void {
  const { limits } = options;
  const ids = new DrawnIds();
  const provider = new BasicTracerProvider({
    resource: options.resource,
    spanProcessors: [options.spanProcessor],
    idGenerator: ids,
    sampler: new AlwaysOnSampler(),
    // Without limits the SDK reads OTEL_SPAN_* (and OTEL_ATTRIBUTE_*) from the export thread's
    // process.env, which holds only the gateway's OTEL_* variables (export-thread.ts).
    ...(limits ? { spanLimits: spanLimits(limits) } : {}),
  });
  const tracer = provider.getTracer(A.TRACER_NAME, options.serviceVersion);
  return (finished) => recordSpans(tracer, ids, finished);
}

function spanLimits(limits: SpanLimitOptions) {
  return {
    attributeCountLimit: limits.attributeCount,
    attributeValueLengthLimit: limits.attributeValueLength,
    eventCountLimit: limits.eventCount,
  };
}

/** Starts and ends the exchange's spans with `tracer`, whose IdGenerator is `ids`. */
function recordSpans(tracer: Tracer, ids: DrawnIds, { record, trace: t }: FinishedExchange): void {
  const name = spanName(record);
  const caller = t.parent ? trace.setSpanContext(ROOT_CONTEXT, remoteSpanContext(t.parent)) : ROOT_CONTEXT;
  ids.traceId = t.traceId;
  ids.spanId = t.serverSpanId;
  const server = tracer.startSpan(name, { kind: SpanKind.SERVER, startTime: millisToHrTime(t.startMs) }, caller);
  // Set once started, not passed to startSpan: only the sampler reads them there, and it samples all.
  server.setAttributes(serverAttributes(record, t));
  for (const event of t.events) server.addEvent(event.name, event.attributes, event.time);
  server.setStatus(serverStatus(record));
  server.end(millisToHrTime(Math.max(t.startMs, t.endMs)));

  const call = t.client;
  if (!call) return;
  ids.spanId = call.spanId;
  const startTime = millisToHrTime(call.startMs);
  const client = tracer.startSpan(name, { kind: SpanKind.CLIENT, startTime }, trace.setSpan(caller, server));
  client.setAttributes(clientAttributes(record, call));
  client.setStatus(clientStatus(record));
  client.end(millisToHrTime(Math.max(call.startMs, t.endMs)));
}

function remoteSpanContext(parent: RemoteParent): SpanContext {
  const { traceId, spanId, traceFlags, traceState } = parent;
  return {
    traceId,
    spanId,
    traceFlags,
    isRemote: true,
    traceState: traceState === undefined ? undefined : createTraceState(traceState),
  };
}

const UNSET: SpanStatus = { code: SpanStatusCode.UNSET };

function clientStatus(r: SpanRecord): SpanStatus {
  return r.outcome === 'upstream-error' ? { code: SpanStatusCode.ERROR, message: r.error?.message } : UNSET;
}

function serverStatus(r: SpanRecord): SpanStatus {
  const failed = r.outcome === 'upstream-error' || r.outcome === 'gateway-error' || r.status >= 500;
  return failed ? { code: SpanStatusCode.ERROR, message: r.error?.message ?? errorType(r) } : UNSET;
}

/** `error.type`: a gateway failure's reason, else the agent's A2A error, else a 5xx status. */
function errorType(record: SpanRecord): string | undefined {
  if (record.error) return record.error.reason;
  const a2aError = record.a2a?.error;
  if (a2aError) return a2aError.reason ?? (a2aError.code !== undefined ? String(a2aError.code) : 'a2a_error');
  return record.status >= 500 ? String(record.status) : undefined;
}

function serverAttributes(record: SpanRecord, t: ExchangeTrace): Attributes {
  const attrs: Attributes = {
    [A.ATTR_GEN_AI_AGENT_NAME]: record.agent,
    [A.ATTR_HTTP_REQUEST_METHOD]: record.httpMethod,
    [A.ATTR_URL_PATH]: t.urlPath,
  };
  const a2a = record.a2a;
  if (a2a) {
    attrs[A.ATTR_A2A_PROTOCOL_VERSION] = a2a.version;
    attrs[A.ATTR_GATEWAY_BINDING] = a2a.binding;
    attrs[A.ATTR_GATEWAY_KIND] = a2a.kind;
    attrs[A.ATTR_GATEWAY_PARTIAL] = a2a.partial;
    if (a2a.operation !== 'unknown') attrs[A.ATTR_A2A_METHOD_NAME] = a2a.operation;
    if (a2a.taskId !== undefined) attrs[A.ATTR_A2A_TASK_ID] = a2a.taskId;
    if (a2a.state !== undefined) attrs[A.ATTR_A2A_TASK_STATE] = a2a.state;
    if (a2a.messageId !== undefined) attrs[A.ATTR_A2A_MESSAGE_ID] = a2a.messageId;
    if (a2a.tenant !== undefined) attrs[A.ATTR_A2A_TENANT] = a2a.tenant;
    if (a2a.contextId !== undefined) attrs[A.ATTR_GEN_AI_CONVERSATION_ID] = a2a.contextId;
    if (a2a.blocking !== undefined) attrs[A.ATTR_GATEWAY_BLOCKING] = a2a.blocking;
    if (a2a.error) attrs[A.ATTR_GATEWAY_A2A_ERROR] = a2a.error.reason ?? String(a2a.error.code ?? '');
    const stream = a2a.stream;
    if (stream) {
      let events = 0;
      for (const kind of STREAM_EVENT_KINDS) events += stream.events[kind] ?? 0;
      attrs[A.ATTR_GATEWAY_STREAM_EVENTS] = events;
      attrs[A.ATTR_GATEWAY_STREAM_AGENT_KEEPALIVES] = stream.agentKeepalives;
      attrs[A.ATTR_GATEWAY_STREAM_GATEWAY_KEEPALIVES] = record.gatewayKeepalives;
    }
  }
  attrs[A.ATTR_GATEWAY_OUTCOME] = record.outcome;
  if (record.status > 0) attrs[A.ATTR_HTTP_RESPONSE_STATUS_CODE] = record.status;
  const error = errorType(record);
  if (error !== undefined) attrs[A.ATTR_ERROR_TYPE] = error;
  if (record.findings.length > 0) attrs[A.ATTR_GATEWAY_FINDINGS] = record.findings.map((f) => f.rule);
  if (t.eventsDropped > 0) attrs[A.ATTR_GATEWAY_EVENTS_DROPPED] = t.eventsDropped;
  if (record.access) addAccessAttributes(attrs, record.access);
  return attrs;
}

/** Who called and what access control refused, so a denial's trace can be found by caller. */
function addAccessAttributes(attrs: Attributes, access: AccessFacts): void {
  if (access.principal !== undefined) attrs[A.ATTR_ENDUSER_ID] = access.principal;
  if (access.denied !== undefined) attrs[A.ATTR_GATEWAY_ACCESS_DENIED] = access.denied;
  if (access.rateLimited) attrs[A.ATTR_GATEWAY_RATE_LIMITED] = true;
  if (access.pushRefused !== undefined) attrs[A.ATTR_GATEWAY_PUSH_REFUSED] = access.pushRefused;
}

function clientAttributes(record: SpanRecord, client: ClientCall): Attributes {
  const target = originTarget(client.origin);
  const attrs: Attributes = {
    [A.ATTR_GEN_AI_AGENT_NAME]: record.agent,
    [A.ATTR_HTTP_REQUEST_METHOD]: record.httpMethod,
    [A.ATTR_SERVER_ADDRESS]: target.address,
    [A.ATTR_SERVER_PORT]: target.port,
    [A.ATTR_URL_FULL]: client.origin + client.path,
  };
  if (record.a2a && record.a2a.operation !== 'unknown') attrs[A.ATTR_A2A_METHOD_NAME] = record.a2a.operation;
  if (record.outcome === 'upstream-error') attrs[A.ATTR_ERROR_TYPE] = record.error?.reason ?? 'upstream_error';
  else if (record.status > 0) attrs[A.ATTR_HTTP_RESPONSE_STATUS_CODE] = record.status;
  return attrs;
}

const targets = new Map<string, { address: string; port: number }>();

/** `server.address` / `server.port` of an agent's origin, parsed once per agent. */
function originTarget(origin: string): { address: string; port: number } {
  let target = targets.get(origin);
  if (!target) {
    const url = new URL(origin);
    target = { address: url.hostname, port: Number(url.port || (url.protocol === 'https:' ? 443 : 80)) };
    // Origins come from the configuration: a handful.
    if (targets.size < 1024) targets.set(origin, target);
  }
  return target;
}
