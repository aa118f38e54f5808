/**
 * The OTEL_* settings the SDK reads itself on the export thread (otlp-pipeline.ts), checked by
 * what reaches a collector: the endpoint, headers, compression, resource and service name, the
 * batch processor's schedule and span limits; its warnings about a setting it cannot use; and
 * that the thread sees the variables the gateway was given, not the process's own environment.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startExportThread, type TracingLog } from '../../../src/telemetry/tracing/export-thread.js';
import { tracingOptionsFromEnv } from '../../../src/telemetry/tracing/tracing-config.js';
import { pollUntil, withDeadline } from '../../peers/deadline.js';
import { packedExchange as packed } from '../support/records.js';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver.js';

const open: OtlpReceiver[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((r) => r.close()));
});

async function receiver(): Promise<OtlpReceiver> {
  const r = await startOtlpReceiver();
  open.push(r);
  return r;
}

/** Exports one exchange's spans with the settings `env` gives, flushing unless told not to. */
async function exportOne(env: Record<string, string>, { flush = true } = {}) {
  const lines: string[] = [];
  const log: TracingLog = { warn: (m) => void lines.push(m), error: (m) => void lines.push(m) };
  const thread = startExportThread(tracingOptionsFromEnv(env).options!, { serviceVersion: '1.2.3', log });
  thread.ship(packed());
  return {
    lines,
    thread,
    done: async () => {
      if (flush) await withDeadline(thread.forceFlush(), 10_000, 'flush');
      await withDeadline(thread.shutdown(), 10_000, 'shutdown');
    },
  };
}

async function exported(env: Record<string, string>) {
  const run = await exportOne(env);
  await run.done();
  return run;
}

describe('what the export thread’s SDK reads from the OTEL_* variables', () => {
  it('appends v1/traces to the general endpoint; uses the traces endpoint as given', async () => {
    const r = await receiver();
    await exported({ OTEL_EXPORTER_OTLP_ENDPOINT: `${r.url}/` });
    await exported({ OTEL_EXPORTER_OTLP_ENDPOINT: `${r.url}/otlp` });
    await exported({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:1',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${r.url}/v1/traces`,
    });
    expect(r.requests.map((q) => q.path)).toEqual(['/v1/traces', '/otlp/v1/traces', '/v1/traces']);
    expect(r.spans.length).toBeGreaterThan(0);
  });

  it('sends the headers (the traces ones over the general ones), gzipped, with the resource attributes', async () => {
    const r = await receiver();
    await exported({
      OTEL_EXPORTER_OTLP_ENDPOINT: r.url,
      OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20abc,x-team=obs',
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'x-team=traces',
      OTEL_EXPORTER_OTLP_COMPRESSION: 'gzip',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=prod,service.name=from-resource',
    });
    expect(r.requests[0]!.headers).toMatchObject({
      authorization: 'Bearer abc',
      'x-team': 'traces',
      'content-encoding': 'gzip',
    });
    expect(r.spans[0]!.resource).toMatchObject({
      'deployment.environment': 'prod',
      'service.name': 'from-resource',
      'service.version': '1.2.3',
    });
  });

  it('names the service by OTEL_SERVICE_NAME over the resource attributes, else a2a-gateway', async () => {
    const r = await receiver();
    await exported({
      OTEL_EXPORTER_OTLP_ENDPOINT: r.url,
      OTEL_SERVICE_NAME: 'gw',
      OTEL_RESOURCE_ATTRIBUTES: 'service.name=r',
    });
    await exported({ OTEL_EXPORTER_OTLP_ENDPOINT: r.url });
    // One span each: the exchange never reached an agent.
    expect(r.spans.map((s) => s.resource['service.name'])).toEqual(['gw', 'a2a-gateway']);
  });

  it('exports on the batch processor’s own schedule (OTEL_BSP_SCHEDULE_DELAY; 5 s by default)', async () => {
    const r = await receiver();
    const run = await exportOne(
      { OTEL_EXPORTER_OTLP_ENDPOINT: r.url, OTEL_BSP_SCHEDULE_DELAY: '20' },
      { flush: false },
    );
    try {
      // The first exchange, flushed, waits for the thread to start; the second is not flushed.
      await withDeadline(run.thread.forceFlush(), 10_000, 'the thread up');
      run.thread.ship(packed());
      await pollUntil(
        async () => r.spans.length,
        (n) => n > 1,
        2_500,
        'spans without a flush',
      );
    } finally {
      await run.done();
    }
  });

  it('applies the span limits (OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT)', async () => {
    const r = await receiver();
    await exported({ OTEL_EXPORTER_OTLP_ENDPOINT: r.url, OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT: '4' });
    expect(r.spans[0]!.attributes['gen_ai.agent.name']).toBe('revi');
  });

  it("tells the gateway's log about a setting the SDK cannot use", async () => {
    const r = await receiver();
    const { lines } = await exported({ OTEL_EXPORTER_OTLP_ENDPOINT: r.url, OTEL_EXPORTER_OTLP_TIMEOUT: '-5' });
    expect(lines).toEqual([expect.stringMatching(/^span export: .*OTEL_EXPORTER_OTLP_TIMEOUT is invalid/)]);
    expect(r.spans.length).toBeGreaterThan(0);
  });

  it('reads the variables the gateway was given, not the process’s environment (principle 11)', async () => {
    const r = await receiver();
    process.env.OTEL_EXPORTER_OTLP_HEADERS = 'x-leaked=1';
    try {
      await exported({ OTEL_EXPORTER_OTLP_ENDPOINT: r.url });
    } finally {
      delete process.env.OTEL_EXPORTER_OTLP_HEADERS;
    }
    expect(r.requests[0]!.headers['x-leaked']).toBeUndefined();
  });
});
