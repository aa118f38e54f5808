/**
 * Traces from exchange records (principle 7: a subscriber, never on the forwarding path's
 * critical decisions). One SERVER span per exchange, from the request's start until its body
 * ends (principle 8), named after the A2A operation; one CLIENT span for the call to the agent,
 * whose id goes to the agent as `traceparent`. Off (an observer with no hooks) when `options` is
 * undefined, so an untraced gateway does no per-request work.
 *
 * The request thread does as little as it can: honour the caller's `traceparent`, ask the SDK's
 * sampler, draw the exchange's ids (trace-ids.ts), stamp times, and (for sampled streams) note span
 * events. When a sampled exchange finishes, its record and trace go to the export thread
 * (export-thread.ts), which makes the spans with the SDK's tracer (record-spans.ts) and runs the
 * SDK's BatchSpanProcessor and OTLP/HTTP exporter. bench/RESULTS.md has the cost.
 *
 * No global OpenTelemetry state is registered: contexts are passed explicitly, so several
 * gateways (tests) can trace side by side and nothing else in the process is affected.
 */
import { performance } from 'node:perf_hooks';
import { ROOT_CONTEXT, SpanKind, TraceFlags, trace, type SpanContext } from '@opentelemetry/api';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  ParentBasedSampler,
  SamplingDecision,
  TraceIdRatioBasedSampler,
  type Sampler,
} from '@opentelemetry/sdk-trace-base';
import type { Exchange, ExchangeObserver } from '../../exchange/exchange.js';
import type { ExchangeRecord } from '../../exchange/record.js';
import type { TracingOptions } from './tracing-config.js';
import { extractIncoming, injectUpstream, TRACE_ID_KEY } from './trace-context.js';
import { SpanEventRecorder, spanName } from './span-facts.js';
import { startExportThread, type ExportThread, type TracingLog } from './export-thread.js';
import { ExchangeIdSource } from './trace-ids.js';
import { packExchange, type ClientCall, type RemoteParent } from './exchange-pack.js';

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
  /** Failed exports, dropped spans, a failed export thread (traffic is never affected). */
  readonly log?: TracingLog;
}

export function createTracing(options: TracingOptions | undefined, deps: TracingDeps = {}): Tracing {
  if (!options) return OFF;
  const thread = startExportThread(options, deps);
  return {
    enabled: true,
    observer: exchangeTracer(thread, options),
    shutdown: () => thread.shutdown(),
    forceFlush: () => thread.forceFlush(),
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

const NO_ATTRIBUTES = Object.freeze({});
const NO_LINKS: never[] = [];
const NO_EVENTS: never[] = [];

function withoutQuery(path: string): string {
  const q = path.indexOf('?');
  return q === -1 ? path : path.slice(0, q);
}

/** An exchange's trace while it runs, on the request thread. */
interface OpenTrace {
  readonly traceId: string;
  readonly serverSpanId: string;
  /** Drawn with the other two; used if the request goes to the agent. */
  readonly clientSpanId: string;
  /** The caller's span, when its `traceparent` was honoured. */
  readonly parent: SpanContext | undefined;
  readonly startMs: number;
  readonly urlPath: string;
  client: ClientCall | undefined;
  readonly sampled: boolean;
  /** Span events of a sampled exchange, made when the first fact worth one appears. */
  events: SpanEventRecorder | undefined;
}

/** The observer: each exchange's ids and times live in `exchange.state` under this observer's key. */
function exchangeTracer(thread: ExportThread, options: TracingOptions): ExchangeObserver {
  const key = {};
  const ids = new ExchangeIdSource();
  const decide = sampler(options);
  // timeOrigin is a getter into the runtime: read once.
  const origin = performance.timeOrigin;
  const epochMs = () => origin + performance.now();
  const traceOf = (exchange: Exchange) => exchange.state.get(key) as OpenTrace | undefined;

  const open = (exchange: Exchange): OpenTrace => {
    const existing = traceOf(exchange);
    if (existing) return existing;
    const context = options.propagate ? extractIncoming(exchange.call.headers) : undefined;
    const parent = context ? trace.getSpanContext(context) : undefined;
    const drawn = ids.draw();
    const traceId = parent?.traceId ?? drawn.traceId;
    const name = spanName(exchange.record);
    // Samplers read the parent from the context (ParentBased) or the trace id (ratio).
    const sampled =
      decide.shouldSample(context ?? ROOT_CONTEXT, traceId, name, SpanKind.SERVER, NO_ATTRIBUTES, NO_LINKS).decision ===
      SamplingDecision.RECORD_AND_SAMPLED;
    const state: OpenTrace = {
      traceId,
      serverSpanId: drawn.serverSpanId,
      clientSpanId: drawn.clientSpanId,
      parent,
      // The exchange's own clock reading, so the span starts when the request arrived.
      startMs: origin + exchange.startedAtMonotonic,
      urlPath: withoutQuery(exchange.call.target),
      client: undefined,
      sampled,
      events: undefined,
    };
    exchange.state.set(key, state);
    exchange.state.set(TRACE_ID_KEY, traceId);
    // On the record too, so what is read later without the exchange (the console's exchange
    // detail, GET /exchanges) can link the trace.
    exchange.record.traceId = traceId;
    return state;
  };

  const noteEvents = (state: OpenTrace, record: ExchangeRecord, at: number) => {
    if (!state.events && !SpanEventRecorder.hasFacts(record)) return;
    (state.events ??= new SpanEventRecorder(options.eventCountLimit)).sync(record, at);
  };

  return {
    name: 'tracing',
    onForward(exchange, headers) {
      const state = open(exchange);
      state.client = {
        spanId: state.clientSpanId,
        startMs: epochMs(),
        origin: exchange.replica?.origin ?? '',
        path: withoutQuery(exchange.upstreamPath),
      };
      if (options.propagate) {
        injectUpstream(headers, {
          traceId: state.traceId,
          spanId: state.client.spanId,
          traceFlags: flagsOf(state),
          traceState: state.parent?.traceState,
        });
      }
    },

    onResponseChunk(exchange) {
      const state = traceOf(exchange);
      if (state?.sampled) noteEvents(state, exchange.record, epochMs());
    },

    onFinish(exchange) {
      const state = open(exchange);
      if (!state.sampled) return;
      const endMs = epochMs();
      noteEvents(state, exchange.record, endMs);
      const events = state.events;
      thread.ship(
        packExchange(exchange.record, {
          traceId: state.traceId,
          serverSpanId: state.serverSpanId,
          parent: state.parent && remoteParent(state.parent),
          startMs: state.startMs,
          endMs,
          urlPath: state.urlPath,
          client: state.client,
          events: events?.events ?? NO_EVENTS,
          eventsDropped: events?.dropped ?? 0,
        }),
      );
    },
  };
}

/** W3C trace flags of the gateway's spans: sampled or not. */
function flagsOf(state: OpenTrace): number {
  return state.sampled ? TraceFlags.SAMPLED : TraceFlags.NONE;
}

function remoteParent(parent: SpanContext): RemoteParent {
  const { traceId, spanId, traceFlags, traceState } = parent;
  return { traceId, spanId, traceFlags, traceState: traceState?.serialize() };
}
