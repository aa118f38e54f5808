/**
 * What the request thread needs of the standard OpenTelemetry SDK environment variables
 * (https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/), read from
 * an `env` object the caller passes in — nothing here touches `process.env` (principle 11):
 * whether tracing is on, the sampler, propagation, and the two bounds the request thread applies
 * itself. Tracing stays off unless an OTLP endpoint or `OTEL_TRACES_EXPORTER=otlp` is given: a
 * gateway nobody asked to trace pays nothing for it.
 *
 * The rest — endpoint, headers, timeout, compression, certificates, the batch processor's
 * settings, span limits, `OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES` — the SDK reads
 * itself on the export thread, whose `process.env` is the OTEL_* variables of this `env`
 * (`exportEnv`, export-thread.ts), and warns there about what it cannot use.
 */
export type Env = Readonly<Record<string, string | undefined>>;

export type SamplerName =
  | 'always_on'
  | 'always_off'
  | 'traceidratio'
  | 'parentbased_always_on'
  | 'parentbased_always_off'
  | 'parentbased_traceidratio';

const SAMPLERS: readonly SamplerName[] = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
];

export type OtlpProtocol = 'http/protobuf' | 'http/json';

const PROTOCOLS: readonly string[] = ['http/protobuf', 'http/json'];

export interface TracingOptions {
  /** OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL; default http/json. Which exporter the thread makes. */
  readonly protocol: OtlpProtocol;
  readonly sampler: SamplerName;
  readonly samplerRatio: number;
  /** W3C trace context is read from callers and written to agents (OTEL_PROPAGATORS). */
  readonly propagate: boolean;
  /** OTEL_BSP_MAX_QUEUE_SIZE: also the bound on exchanges waiting for the export thread. */
  readonly maxQueueSize: number;
  /** OTEL_SPAN_EVENT_COUNT_LIMIT: the span events the request thread notes per exchange. */
  readonly eventCountLimit: number;
  /** The export thread's `process.env`, from which the SDK reads its own settings. */
  readonly exportEnv: Readonly<Record<string, string>>;
}

export interface TracingSetup {
  /** Undefined when tracing is off. */
  readonly options: TracingOptions | undefined;
  /** Settings that were ignored or replaced, for the start-up log. */
  readonly warnings: string[];
}

/** Trimmed values of `env`; a number that is not one is replaced by its default, with a warning. */
interface EnvReader {
  str(name: string): string | undefined;
  num(name: string, fallback: number): number;
  /** OTEL_EXPORTER_OTLP_TRACES_{name}, else OTEL_EXPORTER_OTLP_{name}. */
  signal(name: string): string | undefined;
  readonly warnings: string[];
}

function envReader(env: Env): EnvReader {
  const warnings: string[] = [];
  const str = (name: string): string | undefined => {
    const v = env[name]?.trim();
    return v ? v : undefined;
  };
  const num = (name: string, fallback: number): number => {
    const raw = str(name);
    if (raw === undefined) return fallback;
    const n = Number(raw);
    if (Number.isFinite(n) && n >= 0) return n;
    warnings.push(`${name}=${raw} is not a non-negative number; using ${fallback}`);
    return fallback;
  };
  const signal = (name: string) => str(`OTEL_EXPORTER_OTLP_TRACES_${name}`) ?? str(`OTEL_EXPORTER_OTLP_${name}`);
  return { str, num, signal, warnings };
}

export function tracingOptionsFromEnv(env: Env): TracingSetup {
  const read = envReader(env);
  const { num, warnings } = read;
  if (!otlpWanted(read)) return { options: undefined, warnings };
  const protocol = otlpProtocol(read);
  if (!protocol) return { options: undefined, warnings };
  return {
    warnings,
    options: {
      protocol,
      ...samplerSetting(read),
      propagate: propagatesTraceContext(read),
      // The SDK's defaults for these two (BatchSpanProcessor, span limits), which it applies too.
      maxQueueSize: num('OTEL_BSP_MAX_QUEUE_SIZE', 2048),
      eventCountLimit: num('OTEL_SPAN_EVENT_COUNT_LIMIT', 128),
      exportEnv: exportEnv(env),
    },
  };
}

/**
 * Sampling is decided on the request thread and the export thread's tracer samples everything
 * (record-spans.ts): its SDK would only parse, and complain about, the sampler variables again.
 */
const REQUEST_THREAD_ONLY = new Set(['OTEL_TRACES_SAMPLER', 'OTEL_TRACES_SAMPLER_ARG']);

/** The OTEL_* variables of `env`, for the export thread's SDK to read itself. */
function exportEnv(env: Env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env))
    if (name.startsWith('OTEL_') && value !== undefined && !REQUEST_THREAD_ONLY.has(name)) out[name] = value;
  return out;
}

/** Whether an OTLP exporter is asked for: an OTLP endpoint or `OTEL_TRACES_EXPORTER=otlp`. */
function otlpWanted({ str, warnings }: EnvReader): boolean {
  if (str('OTEL_SDK_DISABLED')?.toLowerCase() === 'true') return false;
  const exporters = (str('OTEL_TRACES_EXPORTER') ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  if (exporters.includes('none')) return false;
  if (exporters.length === 0)
    return Boolean(str('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT') ?? str('OTEL_EXPORTER_OTLP_ENDPOINT'));
  for (const e of exporters)
    if (e !== 'otlp') warnings.push(`OTEL_TRACES_EXPORTER "${e}" is not supported; only otlp is`);
  return exporters.includes('otlp');
}

/** The OTLP/HTTP encoding; undefined (tracing off) for gRPC. */
function otlpProtocol({ signal, warnings }: EnvReader): OtlpProtocol | undefined {
  // http/json unless asked otherwise (the JS SDK's OTLP/HTTP exporter default); http/protobuf
  // sends less than half the bytes.
  const protocol = signal('PROTOCOL') ?? 'http/json';
  if (protocol === 'grpc') {
    warnings.push('OTLP over gRPC is not supported; tracing is off (use http/protobuf or http/json on port 4318)');
    return undefined;
  }
  if (PROTOCOLS.includes(protocol)) return protocol as OtlpProtocol;
  warnings.push(`OTLP protocol "${protocol}" is not supported; using http/json`);
  return 'http/json';
}

function samplerSetting({ str, num, warnings }: EnvReader): { sampler: SamplerName; samplerRatio: number } {
  let sampler = (str('OTEL_TRACES_SAMPLER') ?? 'parentbased_always_on') as SamplerName;
  if (!SAMPLERS.includes(sampler)) {
    warnings.push(`OTEL_TRACES_SAMPLER "${sampler}" is not supported; using parentbased_always_on`);
    sampler = 'parentbased_always_on';
  }
  return { sampler, samplerRatio: Math.min(1, num('OTEL_TRACES_SAMPLER_ARG', 1)) };
}

function propagatesTraceContext({ str, warnings }: EnvReader): boolean {
  const propagators = (str('OTEL_PROPAGATORS') ?? 'tracecontext,baggage').split(',').map((p) => p.trim());
  for (const p of propagators) {
    // Baggage is an end-to-end header the gateway forwards unchanged anyway.
    if (!['tracecontext', 'baggage', 'none'].includes(p))
      warnings.push(`OTEL_PROPAGATORS "${p}" is not supported; only tracecontext is`);
  }
  return propagators.includes('tracecontext');
}
