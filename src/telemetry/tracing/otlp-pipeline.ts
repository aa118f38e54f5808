/**
 * The resource every span carries, and the SDK's BatchSpanProcessor feeding its OTLP/HTTP
 * exporter (transport, retries, timeout, gzip, JSON or protobuf encoding). Runs on the export
 * thread (export-worker.ts).
 */
import { BatchSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { OTLPTraceExporter as OtlpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OtlpProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { defaultResource, resourceFromAttributes, type Resource } from '@opentelemetry/resources';
import type { TracingOptions } from './tracing-config.js';
import * as A from './span-attributes.js';

export interface OtlpPipeline {
  readonly resource: Resource;
  readonly processor: BatchSpanProcessor;
}

export function createOtlpPipeline(options: TracingOptions, serviceVersion: string | undefined): OtlpPipeline {
  const processor = new BatchSpanProcessor(otlpExporter(options, serviceVersion), {
    scheduledDelayMillis: options.batch.scheduledDelayMs,
    exportTimeoutMillis: options.batch.exportTimeoutMs,
    maxQueueSize: options.batch.maxQueueSize,
    maxExportBatchSize: options.batch.maxExportBatchSize,
  });
  const resource = defaultResource().merge(
    resourceFromAttributes({
      ...options.resourceAttributes,
      [A.ATTR_SERVICE_NAME]: options.serviceName,
      ...(serviceVersion ? { [A.ATTR_SERVICE_VERSION]: serviceVersion } : {}),
    }),
  );
  return { resource, processor };
}

type ExporterConfig = NonNullable<ConstructorParameters<typeof OtlpJsonExporter>[0]>;

/** The SDK's OTLP/HTTP exporter for the chosen encoding. */
function otlpExporter(options: TracingOptions, serviceVersion: string | undefined): SpanExporter {
  const config: ExporterConfig = {
    url: options.url,
    headers: { ...options.headers },
    timeoutMillis: options.timeoutMs,
    compression: options.compression as ExporterConfig['compression'],
    userAgent: `a2a-gateway/${serviceVersion ?? 'dev'}`,
  };
  return options.protocol === 'http/json' ? new OtlpJsonExporter(config) : new OtlpProtobufExporter(config);
}
