/**
 * Traces from exchange records (principle 7: a subscriber, never on the forwarding path's
 * critical decisions). One SERVER span per exchange, from the request's start until its body
 * ends (principle 8), named after the A2A operation; one CLIENT span for the call to the agent,
 * whose id goes to the agent as `traceparent`. Off (an observer with no hooks) when `options` is
 * undefined, so an untraced gateway does no per-request work.
 *
 * The request path does as little as it can: honour the caller's `traceparent`, ask the SDK's
 * sampler, draw ids with the SDK's generator, stamp times, and (for sampled streams) note span
 * events. The spans themselves are views over the finished exchange record (exchange-spans.ts),
 * handed to the SDK's BatchSpanProcessor and OTLP/HTTP exporter; their attributes are computed
 * when a batch is exported. bench/RESULTS.md has the cost.
 *
 * No global OpenTelemetry state is registered: contexts are passed explicitly, so several
 * gateways (tests) can trace side by side and nothing else in the process is affected.
 */
import { performance } from 'node:perf_hooks';
import { ROOT_CONTEXT, SpanKind, TraceFlags, trace } from '@opentelemetry/api';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  RandomIdGenerator,
  SamplingDecision,
  TraceIdRatioBasedSampler,
  type Sampler,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import { OTLPTraceExporter as OtlpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OtlpProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import type { Exchange, ExchangeObserver } from '../proxy/exchange.js';
import type { TracingOptions } from './tracing-config.js';
import { extractIncoming, injectUpstream, TRACE_ID_KEY } from './trace-context.js';
import { SpanEventRecorder, spanName } from './span-facts.js';
import { ClientSpanView, ServerSpanView, type ExchangeTrace, type SpanSource } from './exchange-spans.js';
import * as A from './span-attributes.js';

export interface Tracing {
  readonly enabled: boolean;
  readonly observer: ExchangeObserver;
  /** Exports what is queued (call after the listener drained on shutdown). */
  shutdown(): Promise<void>;
  forceFlush(): Promise<void>;
}

const OFF: Tracing = { enabled: false, observer: {}, shutdown: async () => {}, forceFlush: async () => {} };

export interface TracingDeps {
  /** service.version on the resource. */
  readonly serviceVersion?: string;
}

export function createTracing(options: TracingOptions | undefined, deps: TracingDeps = {}): Tracing {
  if (!options) return OFF;
  const processor = new BatchSpanProcessor(otlpExporter(options, deps), {
    scheduledDelayMillis: options.batch.scheduledDelayMs,
    exportTimeoutMillis: options.batch.exportTimeoutMs,
    maxQueueSize: options.batch.maxQueueSize,
    maxExportBatchSize: options.batch.maxExportBatchSize,
  });
  const source: SpanSource = {
    resource: defaultResource().merge(
      resourceFromAttributes({
        ...options.resourceAttributes,
        [A.ATTR_SERVICE_NAME]: options.serviceName,
        ...(deps.serviceVersion ? { [A.ATTR_SERVICE_VERSION]: deps.serviceVersion } : {}),
      }),
    ),
    instrumentationScope: { name: A.TRACER_NAME, version: deps.serviceVersion },
    limits: options.limits,
  };
  return {
    enabled: true,
    observer: exchangeTracer(processor, source, options),
    shutdown: () => processor.shutdown(),
    forceFlush: () => processor.forceFlush(),
  };
}

type ExporterConfig = NonNullable<ConstructorParameters<typeof OtlpJsonExporter>[0]>;

/** The SDK's OTLP/HTTP exporter for the chosen encoding (transport, retries, timeout, gzip). */
function otlpExporter(options: TracingOptions, deps: TracingDeps): SpanExporter {
  const config: ExporterConfig = {
    url: options.url,
    headers: { ...options.headers },
    timeoutMillis: options.timeoutMs,
    compression: options.compression as ExporterConfig['compression'],
    userAgent: `a2a-gateway/${deps.serviceVersion ?? 'dev'}`,
  };
  return options.protocol === 'http/json' ? new OtlpJsonExporter(config) : new OtlpProtobufExporter(config);
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

const NO_ATTRIBUTES = Object.freeze({});
const NO_LINKS: never[] = [];

function withoutQuery(path: string): string {
  const q = path.indexOf('?');
  return q === -1 ? path : path.slice(0, q);
}

/** The observer: each exchange's ids and times live in `exchange.state` under this observer's key. */
function exchangeTracer(processor: BatchSpanProcessor, source: SpanSource, options: TracingOptions): ExchangeObserver {
  const key = {};
  const ids = new RandomIdGenerator();
  const decide = sampler(options);
  // timeOrigin is a getter into the runtime: read once.
  const origin = performance.timeOrigin;
  const epochMs = () => origin + performance.now();
  const traceOf = (exchange: Exchange) => exchange.state.get(key) as ExchangeTrace | undefined;

  const open = (exchange: Exchange): ExchangeTrace => {
    const existing = traceOf(exchange);
    if (existing) return existing;
    const context = options.propagate ? extractIncoming(exchange.req.headers) : undefined;
    const parent = context ? trace.getSpanContext(context) : undefined;
    const traceId = parent?.traceId ?? ids.generateTraceId();
    const name = spanName(exchange.record);
    // Samplers read the parent from the context (ParentBased) or the trace id (ratio).
    const sampled = decide.shouldSample(context ?? ROOT_CONTEXT, traceId, name, SpanKind.SERVER, NO_ATTRIBUTES, NO_LINKS).decision === SamplingDecision.RECORD_AND_SAMPLED;
    const state: ExchangeTrace = {
      traceId,
      serverSpanId: ids.generateSpanId(),
      parent,
      traceFlags: sampled ? TraceFlags.SAMPLED : TraceFlags.NONE,
      traceState: parent?.traceState,
      // The exchange's own clock reading, so the span starts when the request arrived.
      startMs: origin + exchange.startedAtMonotonic,
      endMs: 0,
      urlPath: withoutQuery(exchange.req.url ?? '/'),
      events: sampled ? new SpanEventRecorder(options.limits.eventCount) : undefined,
    };
    exchange.state.set(key, state);
    exchange.state.set(TRACE_ID_KEY, traceId);
    return state;
  };

  return {
    onForward(exchange, headers) {
      const state = open(exchange);
      state.client = { spanId: ids.generateSpanId(), startMs: epochMs(), origin: exchange.upstream.origin, path: withoutQuery(exchange.upstreamPath) };
      if (options.propagate) {
        injectUpstream(headers, { traceId: state.traceId, spanId: state.client.spanId, traceFlags: state.traceFlags, traceState: state.traceState });
      }
    },

    onResponseChunk(exchange) {
      const events = traceOf(exchange)?.events;
      if (events) events.sync(exchange.record, epochMs());
    },

    onFinish(exchange) {
      const state = open(exchange);
      state.endMs = epochMs();
      if (!state.events) return; // only sampled exchanges have a recorder, and spans
      state.events.sync(exchange.record, state.endMs);
      processor.onEnd(new ServerSpanView(source, exchange.record, state));
      if (state.client) processor.onEnd(new ClientSpanView(source, exchange.record, state, state.client));
    },
  };
}
