/**
 * The resource every span carries, and the SDK's BatchSpanProcessor feeding its OTLP/HTTP
 * exporter (transport, retries, timeout, gzip, JSON or protobuf encoding). Runs on the export
 * thread (export-worker.ts), whose `process.env` holds the gateway's OTEL_* variables
 * (export-thread.ts): the exporter reads its endpoint, headers, timeout, compression and
 * certificates there, the processor its OTEL_BSP_* settings, the env detector
 * OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES. Only what the SDK cannot know is given here.
 */
import { BatchSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { OTLPTraceExporter as OtlpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OtlpProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import {
  defaultResource,
  detectResources,
  envDetector,
  resourceFromAttributes,
  type Resource,
} from '@opentelemetry/resources';
import type { TracingOptions } from './tracing-config.js';
import * as A from './span-attributes.js';

export interface OtlpPipeline {
  readonly resource: Resource;
  readonly processor: BatchSpanProcessor;
}

export function createOtlpPipeline(options: TracingOptions, serviceVersion: string | undefined): OtlpPipeline {
  const processor = new BatchSpanProcessor(otlpExporter(options, serviceVersion));
  return { resource: gatewayResource(serviceVersion), processor };
}

/**
 * The SDK's default resource, then the gateway's name (where the environment names none: the
 * SDK's own default is `unknown_service:node`), then the environment's attributes, where
 * OTEL_SERVICE_NAME wins over a `service.name` in OTEL_RESOURCE_ATTRIBUTES; the version last.
 */
function gatewayResource(serviceVersion: string | undefined): Resource {
  return defaultResource()
    .merge(resourceFromAttributes({ [A.ATTR_SERVICE_NAME]: 'a2a-gateway' }))
    .merge(detectResources({ detectors: [envDetector] }))
    .merge(resourceFromAttributes(serviceVersion ? { [A.ATTR_SERVICE_VERSION]: serviceVersion } : {}));
}

/** The SDK's OTLP/HTTP exporter for the chosen encoding. */
function otlpExporter(options: TracingOptions, serviceVersion: string | undefined): SpanExporter {
  const config = { userAgent: `a2a-gateway/${serviceVersion ?? 'dev'}` };
  switch (options.protocol) {
    case 'http/json':
      return new OtlpJsonExporter(config);
    case 'http/protobuf':
      return new OtlpProtobufExporter(config);
    default: {
      const unknown: never = options.protocol;
      throw new TypeError(`no OTLP exporter for protocol ${String(unknown)}`);
    }
  }
}
