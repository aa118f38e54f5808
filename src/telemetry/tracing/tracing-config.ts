/**
 * Reads the standard OpenTelemetry SDK environment variables
 * (https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/ and the OTLP
 * exporter's) from an `env` object the caller passes in — nothing here touches `process.env`
 * (principle 11). Tracing stays off unless an OTLP endpoint or `OTEL_TRACES_EXPORTER=otlp` is
 * given: a gateway nobody asked to trace pays nothing for it.
 */
import { parseKeyPairsIntoRecord } from '@opentelemetry/core';

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
  /** Full OTLP/HTTP traces URL, e.g. http://collector:4318/v1/traces. */
  readonly url: string;
  /** OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL; default http/json. */
  readonly protocol: OtlpProtocol;
  readonly headers: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  readonly compression: 'gzip' | 'none';
  readonly serviceName: string;
  readonly resourceAttributes: Readonly<Record<string, string>>;
  readonly sampler: SamplerName;
  readonly samplerRatio: number;
  /** W3C trace context is read from callers and written to agents (OTEL_PROPAGATORS). */
  readonly propagate: boolean;
  readonly batch: {
    readonly scheduledDelayMs: number;
    readonly exportTimeoutMs: number;
    readonly maxQueueSize: number;
    readonly maxExportBatchSize: number;
  };
  readonly limits: {
    readonly attributeCount: number;
    readonly attributeValueLength: number;
    readonly eventCount: number;
  };
}

export interface TracingSetup {
  /** Undefined when tracing is off. */
  readonly options: TracingOptions | undefined;
  /** Settings that were ignored or replaced, for the start-up log. */
  readonly warnings: string[];
}

const DEFAULT_ENDPOINT = 'http://localhost:4318';

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
  const { str, num, signal, warnings } = read;
  if (!otlpWanted(read)) return { options: undefined, warnings };
  const protocol = otlpProtocol(read);
  if (!protocol) return { options: undefined, warnings };

  // A signal-specific endpoint is used as given; the general one gets /v1/traces appended (OTLP spec).
  const general = str('OTEL_EXPORTER_OTLP_ENDPOINT');
  const url =
    str('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT') ?? `${(general ?? DEFAULT_ENDPOINT).replace(/\/+$/, '')}/v1/traces`;
  const sampling = samplerSetting(read);
  const propagate = propagatesTraceContext(read);
  const resourceAttributes = parseKeyPairsIntoRecord(str('OTEL_RESOURCE_ATTRIBUTES'));
  return {
    warnings,
    options: {
      url,
      protocol,
      headers: parseKeyPairsIntoRecord(signal('HEADERS')),
      timeoutMs: num('OTEL_EXPORTER_OTLP_TRACES_TIMEOUT', num('OTEL_EXPORTER_OTLP_TIMEOUT', 10_000)),
      compression: signal('COMPRESSION') === 'gzip' ? 'gzip' : 'none',
      serviceName: str('OTEL_SERVICE_NAME') ?? resourceAttributes['service.name'] ?? 'a2a-gateway',
      resourceAttributes,
      ...sampling,
      propagate,
      batch: {
        scheduledDelayMs: num('OTEL_BSP_SCHEDULE_DELAY', 5000),
        exportTimeoutMs: num('OTEL_BSP_EXPORT_TIMEOUT', 30_000),
        maxQueueSize: num('OTEL_BSP_MAX_QUEUE_SIZE', 2048),
        maxExportBatchSize: num('OTEL_BSP_MAX_EXPORT_BATCH_SIZE', 512),
      },
      limits: {
        attributeCount: num('OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT', num('OTEL_ATTRIBUTE_COUNT_LIMIT', 128)),
        attributeValueLength: num(
          'OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT',
          num('OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT', Infinity),
        ),
        eventCount: num('OTEL_SPAN_EVENT_COUNT_LIMIT', 128),
      },
    },
  };
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
