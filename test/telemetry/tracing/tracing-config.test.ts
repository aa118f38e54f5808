import { describe, expect, it } from 'vitest';
import { tracingOptionsFromEnv } from '../../../src/telemetry/tracing/tracing-config.js';

describe('tracing settings from OTEL_* variables', () => {
  it('is off when nothing is configured, when disabled, or when the exporter is none', () => {
    expect(tracingOptionsFromEnv({}).options).toBeUndefined();
    expect(tracingOptionsFromEnv({ OTEL_SERVICE_NAME: 'x', OTEL_TRACES_SAMPLER: 'always_on' }).options).toBeUndefined();
    expect(
      tracingOptionsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' }).options,
    ).toBeUndefined();
    expect(
      tracingOptionsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_EXPORTER: 'none' }).options,
    ).toBeUndefined();
  });

  it('appends /v1/traces to the general endpoint and uses the traces endpoint as given', () => {
    expect(tracingOptionsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318/' }).options?.url).toBe(
      'http://c:4318/v1/traces',
    );
    expect(tracingOptionsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318/otlp' }).options?.url).toBe(
      'http://c:4318/otlp/v1/traces',
    );
    expect(
      tracingOptionsFromEnv({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://t.example/custom',
      }).options?.url,
    ).toBe('https://t.example/custom');
    expect(tracingOptionsFromEnv({ OTEL_TRACES_EXPORTER: 'otlp' }).options?.url).toBe(
      'http://localhost:4318/v1/traces',
    );
  });

  it('reads headers, timeout, compression, service name, resource attributes, sampler and batch settings', () => {
    const { options, warnings } = tracingOptionsFromEnv({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
      OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20abc,x-team=obs',
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'x-team=traces',
      OTEL_EXPORTER_OTLP_TIMEOUT: '2500',
      OTEL_EXPORTER_OTLP_COMPRESSION: 'gzip',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=prod,service.name=from-resource',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
      OTEL_BSP_SCHEDULE_DELAY: '100',
      OTEL_SPAN_EVENT_COUNT_LIMIT: '16',
    });
    expect(warnings).toEqual([]);
    expect(options).toMatchObject({
      headers: { 'x-team': 'traces' },
      timeoutMs: 2500,
      compression: 'gzip',
      serviceName: 'from-resource',
      resourceAttributes: { 'deployment.environment': 'prod' },
      sampler: 'parentbased_traceidratio',
      samplerRatio: 0.25,
      propagate: true,
      batch: { scheduledDelayMs: 100 },
      limits: { eventCount: 16 },
    });
    expect(
      tracingOptionsFromEnv({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c',
        OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20abc',
      }).options?.headers,
    ).toEqual({
      authorization: 'Bearer abc',
    });
    expect(
      tracingOptionsFromEnv({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c',
        OTEL_SERVICE_NAME: 'gw',
        OTEL_RESOURCE_ATTRIBUTES: 'service.name=r',
      }).options?.serviceName,
    ).toBe('gw');
    expect(tracingOptionsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c' }).options).toMatchObject({
      serviceName: 'a2a-gateway',
      sampler: 'parentbased_always_on',
      compression: 'none',
    });
  });

  it('warns about what it cannot honour', () => {
    const grpc = tracingOptionsFromEnv({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4317',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
    });
    expect(grpc.options).toBeUndefined();
    expect(grpc.warnings.join()).toMatch(/gRPC/);
    const odd = tracingOptionsFromEnv({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c',
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/thrift',
      OTEL_TRACES_SAMPLER: 'jaeger_remote',
      OTEL_TRACES_SAMPLER_ARG: 'half',
      OTEL_PROPAGATORS: 'b3',
    });
    expect(odd.options).toMatchObject({
      protocol: 'http/json',
      sampler: 'parentbased_always_on',
      samplerRatio: 1,
      propagate: false,
    });
    expect(odd.warnings).toHaveLength(4);
  });

  it('sends http/json unless http/protobuf is asked for, the traces setting first', () => {
    expect(tracingOptionsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c' }).options?.protocol).toBe('http/json');
    const proto = tracingOptionsFromEnv({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf',
    });
    expect(proto.options?.protocol).toBe('http/protobuf');
    expect(proto.warnings).toEqual([]);
  });
});
