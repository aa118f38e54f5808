/**
 * The export thread on its own: how many exchanges may wait for it, and what happens when it
 * fails. The spans it exports are checked end to end in tracing.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { startExportThread, type TracingLog } from '../../../src/telemetry/tracing/export-thread.js';
import { tracingOptionsFromEnv, type TracingOptions } from '../../../src/telemetry/tracing/tracing-config.js';
import { withDeadline } from '../../peers/deadline.js';
import { packedExchange as packed } from '../support/records.js';

/** A log that keeps what it is told. */
function recordingLog() {
  const lines: Array<{ level: 'warn' | 'error'; message: string; error?: Error }> = [];
  const log: TracingLog = {
    warn: (message) => void lines.push({ level: 'warn', message }),
    error: (message, error) => void lines.push({ level: 'error', message, error }),
  };
  return { lines, log };
}

function options(env: Record<string, string> = {}): TracingOptions {
  // Port 1 refuses connections: exports fail, which the SDK reports through its (silent) diag log.
  return tracingOptionsFromEnv({
    OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:1',
    OTEL_EXPORTER_OTLP_TIMEOUT: '200',
    ...env,
  }).options!;
}

describe('the span export thread', () => {
  it('holds at most OTEL_BSP_MAX_QUEUE_SIZE exchanges not yet taken, and counts and reports the ones it drops', async () => {
    const { lines, log } = recordingLog();
    const thread = startExportThread(options({ OTEL_BSP_MAX_QUEUE_SIZE: '3' }), { log });
    try {
      // Shipped in one go: the thread cannot confirm any before the loop ends.
      const accepted = Array.from({ length: 10 }, () => thread.ship(packed()));
      expect(accepted).toEqual([true, true, true, false, false, false, false, false, false, false]);
      expect(thread.dropped).toBe(7);
      // Reported once, not once per drop.
      expect(lines.filter((l) => /dropped/.test(l.message))).toEqual([
        {
          level: 'warn',
          message: 'span export is behind: 1 sampled exchange(s) dropped so far (OTEL_BSP_MAX_QUEUE_SIZE=3)',
        },
      ]);
      await withDeadline(thread.forceFlush(), 10_000, 'flush');
      // Once the thread has taken them, there is room again.
      expect(thread.ship(packed())).toBe(true);
    } finally {
      await withDeadline(thread.shutdown(), 10_000, 'shutdown');
    }
  });

  it('a thread that fails is reported once; spans are dropped and flush and shutdown still return', async () => {
    const errors: Array<{ message: string; error?: Error }> = [];
    let failed!: () => void;
    const failure = new Promise<void>((resolve) => (failed = resolve));
    const log: TracingLog = { warn: () => {}, error: (message, error) => (errors.push({ message, error }), failed()) };
    // Options the thread cannot build an exporter from (a protocol it has none for): it fails at start.
    const broken = { ...options(), protocol: 'grpc' } as unknown as TracingOptions;
    const thread = startExportThread(broken, { log });
    await withDeadline(failure, 10_000, 'the thread failing');
    expect(errors).toHaveLength(1);
    expect(errors[0]!.message).toBe('the span export thread failed: tracing stopped, traffic continues');
    expect(errors[0]!.error).toBeInstanceOf(TypeError);
    expect(thread.ship(packed())).toBe(false);
    await withDeadline(thread.forceFlush(), 1000, 'flush');
    await withDeadline(thread.shutdown(), 1000, 'shutdown');
  });

  it("tells the gateway's log when the collector cannot be reached: on a flush, and on the SDK's own schedule", async () => {
    const flushed = recordingLog();
    const scheduled = recordingLog();
    let told!: () => void;
    const tellsOnSchedule = new Promise<void>((resolve) => (told = resolve));
    const onFlush = startExportThread(options(), { log: flushed.log });
    const onSchedule = startExportThread(options({ OTEL_BSP_SCHEDULE_DELAY: '20' }), {
      log: { ...scheduled.log, error: (m, e) => (scheduled.log.error(m, e), told()) },
    });
    try {
      onFlush.ship(packed());
      await withDeadline(onFlush.forceFlush(), 10_000, 'flush');
      expect(flushed.lines.map((l) => l.message)).toEqual([expect.stringMatching(/^span export: .*ECONNREFUSED/)]);
      // A second failure right after is counted for the next report, not logged on its own.
      onFlush.ship(packed());
      await withDeadline(onFlush.forceFlush(), 10_000, 'second flush');
      expect(flushed.lines).toHaveLength(1);
      onSchedule.ship(packed());
      await withDeadline(tellsOnSchedule, 10_000, 'a log line from the scheduled export');
      expect(scheduled.lines[0]!.message).toMatch(/^span export: .*ECONNREFUSED/);
    } finally {
      await withDeadline(Promise.all([onFlush.shutdown(), onSchedule.shutdown()]), 10_000, 'shutdown');
    }
  });
});
