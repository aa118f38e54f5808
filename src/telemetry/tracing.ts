/**
 * Traces from exchange records (principle 7: a subscriber, never on the forwarding path's
 * critical decisions). One SERVER span per exchange, from the request's start until its body
 * ends (principle 8), named after the A2A operation; one CLIENT span for the call to the agent,
 * whose context goes to the agent as `traceparent`. Off — an observer with no hooks — when
 * `options` is undefined, so an untraced gateway does no per-request work.
 *
 * No global OpenTelemetry state is registered: contexts are passed explicitly, so several
 * gateways (tests) can trace side by side and nothing else in the process is affected.
 */
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Span, type Tracer } from '@opentelemetry/api';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BasicTracerProvider,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  type Sampler,
} from '@opentelemetry/sdk-trace-base';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { Exchange, ExchangeObserver } from '../proxy/exchange.js';
import type { TracingOptions } from './tracing-config.js';
import { extractIncoming, injectUpstream, TRACE_ID_KEY } from './trace-context.js';
import { SpanEventRecorder, finalServerAttributes, errorType, spanName } from './span-facts.js';
import * as A from './span-attributes.js';

export interface Tracing {
  readonly enabled: boolean;
  readonly observer: ExchangeObserver;
  /** Exports what is queued (call after the listener drained on shutdown). */
  shutdown(): Promise<void>;
  forceFlush(): Promise<void>;
}

type ExporterConfig = NonNullable<ConstructorParameters<typeof OTLPTraceExporter>[0]>;

const OFF: Tracing = { enabled: false, observer: {}, shutdown: async () => {}, forceFlush: async () => {} };

export interface TracingDeps {
  /** service.version on the resource. */
  readonly serviceVersion?: string;
}

export function createTracing(options: TracingOptions | undefined, deps: TracingDeps = {}): Tracing {
  if (!options) return OFF;
  const exporter = new OTLPTraceExporter({
    url: options.url,
    headers: { ...options.headers },
    timeoutMillis: options.timeoutMs,
    compression: options.compression as ExporterConfig['compression'],
  });
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({
      ...options.resourceAttributes,
      [A.ATTR_SERVICE_NAME]: options.serviceName,
      ...(deps.serviceVersion ? { [A.ATTR_SERVICE_VERSION]: deps.serviceVersion } : {}),
    }),
    sampler: sampler(options),
    spanLimits: {
      attributeCountLimit: options.limits.attributeCount,
      attributeValueLengthLimit: options.limits.attributeValueLength,
      eventCountLimit: options.limits.eventCount,
    },
    spanProcessors: [
      new BatchSpanProcessor(exporter, {
        scheduledDelayMillis: options.batch.scheduledDelayMs,
        exportTimeoutMillis: options.batch.exportTimeoutMs,
        maxQueueSize: options.batch.maxQueueSize,
        maxExportBatchSize: options.batch.maxExportBatchSize,
      }),
    ],
  });
  const tracer = provider.getTracer(A.TRACER_NAME, deps.serviceVersion);
  return {
    enabled: true,
    observer: exchangeTracer(tracer, options),
    shutdown: () => provider.shutdown(),
    forceFlush: () => provider.forceFlush(),
  };
}

function sampler(options: TracingOptions): Sampler {
  const ratio = new TraceIdRatioBasedSampler(options.samplerRatio);
  switch (options.sampler) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return ratio;
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: ratio });
    default: {
      const _exhaustive: never = options.sampler;
      return _exhaustive;
    }
  }
}

interface ExchangeSpans {
  readonly server: Span;
  readonly events: SpanEventRecorder;
  client?: Span;
}

/** The observer: spans live in `exchange.state` under this observer's key. */
function exchangeTracer(tracer: Tracer, options: TracingOptions): ExchangeObserver {
  const key = {};
  const spansOf = (exchange: Exchange) => exchange.state.get(key) as ExchangeSpans | undefined;

  const open = (exchange: Exchange): ExchangeSpans => {
    const existing = spansOf(exchange);
    if (existing) return existing;
    const { record, req } = exchange;
    const parent = options.propagate ? extractIncoming(req.headers) : undefined;
    const server = tracer.startSpan(
      spanName(record),
      {
        kind: SpanKind.SERVER,
        startTime: record.startedAt,
        attributes: {
          [A.ATTR_GEN_AI_AGENT_NAME]: record.agent,
          [A.ATTR_HTTP_REQUEST_METHOD]: record.httpMethod,
          [A.ATTR_URL_PATH]: (req.url ?? '/').split('?')[0],
        },
      },
      parent,
    );
    const spans: ExchangeSpans = { server, events: new SpanEventRecorder(server, options.limits.eventCount) };
    exchange.state.set(key, spans);
    exchange.state.set(TRACE_ID_KEY, server.spanContext().traceId);
    return spans;
  };

  return {
    onForward(exchange, headers) {
      const spans = open(exchange);
      const { record, upstream } = exchange;
      const origin = new URL(upstream.origin);
      spans.client = tracer.startSpan(
        spanName(record),
        {
          kind: SpanKind.CLIENT,
          attributes: {
            [A.ATTR_GEN_AI_AGENT_NAME]: record.agent,
            [A.ATTR_HTTP_REQUEST_METHOD]: record.httpMethod,
            [A.ATTR_SERVER_ADDRESS]: origin.hostname,
            [A.ATTR_SERVER_PORT]: Number(origin.port || (origin.protocol === 'https:' ? 443 : 80)),
            [A.ATTR_URL_FULL]: upstream.origin + exchange.upstreamPath.split('?')[0],
          },
        },
        trace.setSpan(ROOT_CONTEXT, spans.server),
      );
      if (options.propagate) injectUpstream(headers, spans.client.spanContext());
    },

    onResponseChunk(exchange) {
      const spans = spansOf(exchange);
      if (spans?.server.isRecording()) spans.events.sync(exchange.record, Date.now());
    },

    onFinish(exchange) {
      const spans = open(exchange);
      const { record } = exchange;
      const end = record.startedAt + record.durationMs;
      const failed = record.outcome === 'upstream-error' || record.outcome === 'gateway-error' || record.status >= 500;
      if (spans.client) {
        const upstreamFailed = record.outcome === 'upstream-error';
        spans.client.updateName(spanName(record));
        if (record.a2a && record.a2a.operation !== 'unknown') spans.client.setAttribute(A.ATTR_A2A_METHOD_NAME, record.a2a.operation);
        if (upstreamFailed) {
          spans.client.setAttribute(A.ATTR_ERROR_TYPE, record.error?.reason ?? 'upstream_error');
          spans.client.setStatus({ code: SpanStatusCode.ERROR, message: record.error?.message });
        } else if (record.status > 0) {
          spans.client.setAttribute(A.ATTR_HTTP_RESPONSE_STATUS_CODE, record.status);
        }
        spans.client.end(end);
      }
      const { server, events } = spans;
      if (server.isRecording()) {
        events.sync(record, end);
        server.updateName(spanName(record));
        server.setAttributes(finalServerAttributes(record));
        if (events.dropped > 0) server.setAttribute(A.ATTR_GATEWAY_EVENTS_DROPPED, events.dropped);
        if (failed) server.setStatus({ code: SpanStatusCode.ERROR, message: record.error?.message ?? errorType(record) });
      }
      server.end(end);
    },
  };
}
