/**
 * The export thread (export-thread.ts): receives finished exchanges, makes their spans with the
 * SDK's tracer (record-spans.ts) and feeds them to the SDK's BatchSpanProcessor and OTLP exporter.
 */
import { format } from 'node:util';
import { parentPort, workerData } from 'node:worker_threads';
import { DiagLogLevel, diag } from '@opentelemetry/api';
import { unpackExchange } from './exchange-pack.js';
import {
  REPORT_INTERVAL_MS,
  type ExportWorkerData,
  type FromExportThread,
  type ToExportThread,
} from './export-thread.js';
import { createOtlpPipeline } from './otlp-pipeline.js';
import { spanRecorder } from './record-spans.js';

const port = parentPort;
if (!port) throw new Error('export-worker.ts runs as a worker thread (see export-thread.ts)');
const { options, serviceVersion } = workerData as ExportWorkerData;
const reply = (message: FromExportThread) => port.postMessage(message);

// The SDK reports failed exports and dropped spans through its diagnostic logger. This thread's
// `diag` is its own (a worker has its own module instances), so setting it affects nothing else.
// A collector that is down fails every export, several a second under load: one line per
// interval, counting the others.
let lastReport = -Infinity;
let unreported = 0;
/** While the pipeline is made, every warning is told: each names a setting of its own. */
let starting = true;
const report = (level: 'warn' | 'error', message: string) => {
  if (starting) return reply({ type: 'log', level, message });
  const now = Date.now();
  if (now - lastReport < REPORT_INTERVAL_MS) return void unreported++;
  lastReport = now;
  const more = unreported > 0 ? ` (and ${unreported} more since the last report)` : '';
  unreported = 0;
  reply({ type: 'log', level, message: message + more });
};
const forward =
  (level: 'warn' | 'error') =>
  (message: string, ...args: unknown[]) =>
    report(level, format(message, ...args));
const ignore = () => {};
diag.setLogger(
  { error: forward('error'), warn: forward('warn'), info: ignore, debug: ignore, verbose: ignore },
  DiagLogLevel.WARN,
);

// Made once the diag logger is set: constructing them, the SDK reads its settings from this
// thread's process.env (the gateway's OTEL_* variables, export-thread.ts) and warns about any it
// cannot use (a URL it cannot parse, a number that is none), which the gateway's log should show.
const { resource, processor } = createOtlpPipeline(options, serviceVersion);
const recordSpans = spanRecorder({ resource, spanProcessor: processor, serviceVersion });
starting = false;

port.on('message', (message: ToExportThread) => {
  switch (message.type) {
    case 'exchanges':
      for (const packed of message.exchanges) recordSpans(unpackExchange(packed));
      reply({ type: 'taken', count: message.exchanges.length });
      break;
    case 'flush':
    case 'shutdown': {
      // Exports on the SDK's schedule report failures through diag (above); a flush's own
      // export rejects instead, so that is reported here. The caller only waits either way.
      const done = message.type === 'flush' ? processor.forceFlush() : processor.shutdown();
      void done
        .catch((error: unknown) => report('error', error instanceof Error ? error.message : String(error)))
        .then(() => reply({ type: 'done', id: message.id }));
      break;
    }
  }
});
