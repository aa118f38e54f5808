/**
 * An exchange's two spans as read-only views over its record (principle 7: telemetry consumes
 * decoded facts). The gateway already collects everything a span carries in `ExchangeRecord`, so
 * instead of building OpenTelemetry SDK `Span` objects on the request path (attribute maps,
 * context objects and clocks per call: 30–60 µs for an exchange's two spans on the bench machine,
 * measured in isolation), the request path keeps only ids and timestamps; attributes are computed
 * when the batch is exported.
 * The views implement the SDK's `ReadableSpan`, the interface every SDK span processor and
 * exporter consumes, so the SDK's BatchSpanProcessor and OTLP exporter handle them unchanged.
 *
 * A view is made from a `FinishedExchange`: what spans read of the record, and the trace's ids,
 * times and span events, all plain data. It crosses from the request thread to the export thread
 * (export-thread.ts) packed flat (exchange-pack.ts); the views are built on the export thread.
 */
import {
  SpanKind,
  SpanStatusCode,
  createTraceState,
  type Attributes,
  type AttributeValue,
  type HrTime,
  type Link,
  type SpanContext,
  type SpanStatus,
} from '@opentelemetry/api';
import { hrTimeDuration, millisToHrTime } from '@opentelemetry/core';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan, TimedEvent } from '@opentelemetry/sdk-trace-base';
import type { InstrumentationScope } from '@opentelemetry/core';
import { addServerAttributes, errorType, spanName, type SpanRecord } from './span-facts.js';
import * as A from './span-attributes.js';

/** OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT and OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT, as the SDK applies them. */
export interface AttributeLimits {
  readonly attributeCount: number;
  readonly attributeValueLength: number;
}

/** What every span of one gateway shares. */
export interface SpanSource {
  readonly resource: Resource;
  readonly instrumentationScope: InstrumentationScope;
  readonly limits: AttributeLimits;
}

/** The gateway's call to the agent. */
export interface ClientCall {
  readonly spanId: string;
  readonly startMs: number;
  /** The agent's origin and the request's path there, without the query. */
  readonly origin: string;
  readonly path: string;
}

/** The caller's span, when its `traceparent` was honoured. */
export interface RemoteParent {
  readonly traceId: string;
  readonly spanId: string;
  readonly traceFlags: number;
  /** Its `tracestate`, serialized. */
  readonly traceState: string | undefined;
}

/**
 * An exchange's trace once it has finished: ids, clock readings (epoch milliseconds, fractional)
 * and span events. Plain data only, so it survives a structured clone to the export thread.
 */
export interface ExchangeTrace {
  readonly traceId: string;
  readonly serverSpanId: string;
  readonly parent: RemoteParent | undefined;
  readonly traceFlags: number;
  /** The `tracestate` the spans carry (the caller's), serialized. */
  readonly traceState: string | undefined;
  readonly startMs: number;
  readonly endMs: number;
  /** The request's path (no query), for `url.path`. */
  readonly urlPath: string;
  /** Set when the request went to the agent. */
  readonly client: ClientCall | undefined;
  readonly events: TimedEvent[];
  /** Span events not recorded because of the per-span cap. */
  readonly eventsDropped: number;
}

/** What the export thread receives for each sampled exchange. */
export interface FinishedExchange {
  readonly record: SpanRecord;
  readonly trace: ExchangeTrace;
}

const UNSET: SpanStatus = { code: SpanStatusCode.UNSET };
const NO_LINKS: Link[] = [];
const NO_EVENTS: TimedEvent[] = [];

abstract class ExchangeSpanView implements ReadableSpan {
  abstract readonly kind: SpanKind;
  readonly links = NO_LINKS;
  readonly ended = true;
  readonly droppedLinksCount = 0;
  readonly startTime: HrTime;
  readonly endTime: HrTime;
  readonly resource: Resource;
  readonly instrumentationScope: InstrumentationScope;
  private limited: { attributes: Attributes; dropped: number } | undefined;

  protected readonly record: SpanRecord;
  protected readonly ids: ExchangeTrace;

  protected constructor(
    protected readonly source: SpanSource,
    finished: FinishedExchange,
    startMs: number,
  ) {
    this.record = finished.record;
    this.ids = finished.trace;
    this.resource = source.resource;
    this.instrumentationScope = source.instrumentationScope;
    this.startTime = millisToHrTime(startMs);
    this.endTime = millisToHrTime(Math.max(startMs, this.ids.endMs));
  }

  /** A span of this exchange's trace with the given id. */
  protected context(spanId: string): SpanContext {
    const ids = this.ids;
    return {
      traceId: ids.traceId,
      spanId,
      traceFlags: ids.traceFlags,
      traceState: ids.traceState === undefined ? undefined : createTraceState(ids.traceState),
    };
  }

  abstract spanContext(): SpanContext;
  abstract readonly parentSpanContext: SpanContext | undefined;
  protected abstract computeAttributes(): Attributes;
  abstract readonly status: SpanStatus;
  abstract readonly events: TimedEvent[];
  abstract readonly droppedEventsCount: number;

  get name(): string {
    return spanName(this.record);
  }

  get duration(): HrTime {
    return hrTimeDuration(this.startTime, this.endTime);
  }

  get attributes(): Attributes {
    return this.limitedAttributes().attributes;
  }

  get droppedAttributesCount(): number {
    return this.limitedAttributes().dropped;
  }

  /** Computed once, when the exporter first reads the span. */
  private limitedAttributes(): { attributes: Attributes; dropped: number } {
    return (this.limited ??= limitAttributes(this.computeAttributes(), this.source.limits));
  }
}

/** The SERVER span: the whole exchange, from the request's start until its body ended. */
export class ServerSpanView extends ExchangeSpanView {
  readonly kind = SpanKind.SERVER;

  constructor(source: SpanSource, finished: FinishedExchange) {
    super(source, finished, finished.trace.startMs);
  }

  spanContext(): SpanContext {
    return this.context(this.ids.serverSpanId);
  }

  get parentSpanContext(): SpanContext | undefined {
    const parent = this.ids.parent;
    if (!parent) return undefined;
    return {
      ...parent,
      isRemote: true,
      traceState: parent.traceState === undefined ? undefined : createTraceState(parent.traceState),
    };
  }

  get events(): TimedEvent[] {
    return this.ids.events;
  }

  get droppedEventsCount(): number {
    return this.ids.eventsDropped;
  }

  get status(): SpanStatus {
    const r = this.record;
    const failed = r.outcome === 'upstream-error' || r.outcome === 'gateway-error' || r.status >= 500;
    return failed ? { code: SpanStatusCode.ERROR, message: r.error?.message ?? errorType(r) } : UNSET;
  }

  protected computeAttributes(): Attributes {
    const attrs: Attributes = {
      [A.ATTR_GEN_AI_AGENT_NAME]: this.record.agent,
      [A.ATTR_HTTP_REQUEST_METHOD]: this.record.httpMethod,
      [A.ATTR_URL_PATH]: this.ids.urlPath,
    };
    addServerAttributes(attrs, this.record);
    if (this.droppedEventsCount > 0) attrs[A.ATTR_GATEWAY_EVENTS_DROPPED] = this.droppedEventsCount;
    return attrs;
  }
}

/** The CLIENT span: the gateway's call to the agent; its id is the agent's `traceparent` parent. */
export class ClientSpanView extends ExchangeSpanView {
  readonly kind = SpanKind.CLIENT;
  readonly events = NO_EVENTS;
  readonly droppedEventsCount = 0;

  /** `client`: the exchange's `trace.client`, for an exchange whose request went to the agent. */
  constructor(
    source: SpanSource,
    finished: FinishedExchange,
    private readonly client: ClientCall,
  ) {
    super(source, finished, client.startMs);
  }

  spanContext(): SpanContext {
    return this.context(this.client.spanId);
  }

  get parentSpanContext(): SpanContext {
    return this.context(this.ids.serverSpanId);
  }

  get status(): SpanStatus {
    const r = this.record;
    return r.outcome === 'upstream-error' ? { code: SpanStatusCode.ERROR, message: r.error?.message } : UNSET;
  }

  protected computeAttributes(): Attributes {
    const { record, client } = this;
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

/**
 * The SDK's span limits: attributes beyond the count limit are dropped (and counted), string
 * values longer than the length limit are truncated, also inside arrays.
 */
export function limitAttributes(
  attrs: Attributes,
  limits: AttributeLimits,
): { attributes: Attributes; dropped: number } {
  const keys = Object.keys(attrs);
  const maxLength = limits.attributeValueLength;
  if (keys.length <= limits.attributeCount && maxLength === Infinity) return { attributes: attrs, dropped: 0 };
  const out: Attributes = {};
  let kept = 0;
  for (const key of keys) {
    if (kept >= limits.attributeCount) break;
    out[key] = truncate(attrs[key], maxLength);
    kept++;
  }
  return { attributes: out, dropped: keys.length - kept };
}

function truncate(value: AttributeValue | undefined, max: number): AttributeValue | undefined {
  if (typeof value === 'string') return value.length > max ? value.slice(0, max) : value;
  if (Array.isArray(value))
    return value.map((v) => (typeof v === 'string' && v.length > max ? v.slice(0, max) : v)) as AttributeValue;
  return value;
}
