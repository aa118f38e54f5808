/**
 * The export thread on its own: how many exchanges may wait for it, and what happens when it
 * fails. The spans it exports are checked end to end in tracing.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { startExportThread } from '../../src/telemetry/export-thread.js';
import { packExchange } from '../../src/telemetry/exchange-pack.js';
import { tracingOptionsFromEnv, type TracingOptions } from '../../src/telemetry/tracing-config.js';
import { withDeadline } from '../peers/deadline.js';
import { record } from './support/records.js';

const packed = () =>
  packExchange(record(), { traceId: 'ab'.repeat(16), serverSpanId: 'cd'.repeat(8), parent: undefined, traceFlags: 1, traceState: undefined, startMs: Date.now(), endMs: Date.now(), urlPath: '/', client: undefined, events: [], eventsDropped: 0 });

function options(env: Record<string, string> = {}): TracingOptions {
  // Port 1 refuses connections: exports fail, which the SDK reports through its (silent) diag log.
  return tracingOptionsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:1', OTEL_EXPORTER_OTLP_TIMEOUT: '200', ...env }).options!;
}

describe('the span export thread', () => {
  it('holds at most OTEL_BSP_MAX_QUEUE_SIZE exchanges not yet taken, and counts the ones it drops', async () => {
    const thread = startExportThread(options({ OTEL_BSP_MAX_QUEUE_SIZE: '3' }));
    try {
      // Shipped in one go: the thread cannot confirm any before the loop ends.
      const accepted = Array.from({ length: 10 }, () => thread.ship(packed()));
      expect(accepted).toEqual([true, true, true, false, false, false, false, false, false, false]);
      expect(thread.dropped).toBe(7);
      await withDeadline(thread.forceFlush(), 10_000, 'flush');
      // Once the thread has taken them, there is room again.
      expect(thread.ship(packed())).toBe(true);
    } finally {
      await withDeadline(thread.shutdown(), 10_000, 'shutdown');
    }
  });

  it('a thread that fails is reported once; spans are dropped and flush and shutdown still return', async () => {
    const errors: Error[] = [];
    let failed!: () => void;
    const failure = new Promise<void>((resolve) => (failed = resolve));
    // Options the thread cannot build an exporter from (no batch settings): it fails at start.
    const broken = { ...options(), batch: undefined } as unknown as TracingOptions;
    const thread = startExportThread(broken, { onError: (e) => (errors.push(e), failed()) });
    await withDeadline(failure, 10_000, 'the thread failing');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(TypeError);
    expect(thread.ship(packed())).toBe(false);
    await withDeadline(thread.forceFlush(), 1000, 'flush');
    await withDeadline(thread.shutdown(), 1000, 'shutdown');
  });
});
