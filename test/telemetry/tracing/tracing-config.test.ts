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

  it("reads the sampler, its ratio, propagation and the request thread's two bounds", () => {
    const { options, warnings } = tracingOptionsFromEnv({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
      OTEL_BSP_MAX_QUEUE_SIZE: '64',
      OTEL_SPAN_EVENT_COUNT_LIMIT: '16',
    });
    expect(warnings).toEqual([]);
    expect(options).toMatchObject({
      sampler: 'parentbased_traceidratio',
      samplerRatio: 0.25,
      propagate: true,
      maxQueueSize: 64,
      eventCountLimit: 16,
    });
    expect(tracingOptionsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c' }).options).toMatchObject({
      sampler: 'parentbased_always_on',
      maxQueueSize: 2048,
      eventCountLimit: 128,
    });
  });

  it('hands the export thread the OTEL_* variables but the sampler ones, and nothing else', () => {
    // What the SDK reads there is tested by what reaches a collector (export-settings.test.ts).
    const { options } = tracingOptionsFromEnv({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
      OTEL_EXPORTER_OTLP_HEADERS: 'x-team=obs',
      OTEL_TRACES_SAMPLER: 'always_on',
      OTEL_TRACES_SAMPLER_ARG: '1',
      OTEL_UNSET: undefined,
      HOME: '/root',
      NODE_OPTIONS: '--inspect',
    });
    expect(options?.exportEnv).toEqual({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
      OTEL_EXPORTER_OTLP_HEADERS: 'x-team=obs',
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
