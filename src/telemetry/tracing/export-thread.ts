/**
 * Span export on a worker thread of its own. The request thread hands each sampled exchange's
 * facts over in batches, packed flat (exchange-pack.ts); the export thread makes the spans with
 * the SDK's tracer (record-spans.ts) and runs its BatchSpanProcessor and OTLP exporter
 * (otlp-pipeline.ts). Encoding spans, the
 * garbage it leaves and the export requests' socket writes then cost the thread that serves
 * requests nothing: on the bench machine they were most of tracing's cost (bench/RESULTS.md).
 * pino moves log transports off the event loop the same way.
 *
 * Nothing waits on the export thread while requests flow. It confirms each batch it has taken;
 * exchanges handed over but not yet taken are bounded by OTEL_BSP_MAX_QUEUE_SIZE, and beyond it
 * new ones are dropped and counted, as the SDK's own queue does. What goes wrong is told to the
 * gateway's log: the SDK's own warnings and errors on that thread (a collector that cannot be
 * reached, spans the SDK dropped) and drops here, each kind at most every `REPORT_INTERVAL_MS`
 * with a count of the rest; and a thread that fails, after which tracing stops exporting and the
 * gateway keeps serving.
 */
import { Worker } from 'node:worker_threads';
import type { PackedExchange } from './exchange-pack.js';
import type { TracingOptions } from './tracing-config.js';

/** The export thread's `workerData`. */
export interface ExportWorkerData {
  readonly options: TracingOptions;
  readonly serviceVersion: string | undefined;
}

export type ToExportThread =
  | { readonly type: 'exchanges'; readonly exchanges: PackedExchange[] }
  | { readonly type: 'flush' | 'shutdown'; readonly id: number };

export type FromExportThread =
  | { readonly type: 'taken'; readonly count: number }
  | { readonly type: 'done'; readonly id: number }
  | { readonly type: 'log'; readonly level: 'warn' | 'error'; readonly message: string };

/** Exchanges per message: one structured clone and one wake-up of the export thread for many. */
const BATCH = 64;
/** Longest an exchange waits on the request thread for its batch to fill. */
const LINGER_MS = 25;
/** Troubles (drops here; the SDK's warnings on the export thread) are logged at most this often. */
export const REPORT_INTERVAL_MS = 10_000;

export interface ExportThread {
  /** Queues an exchange's spans for export; false if it was dropped (queue full, thread gone). */
  ship(exchange: PackedExchange): boolean;
  /** Resolves once everything shipped so far has been exported (or failed to be). */
  forceFlush(): Promise<void>;
  /** Flushes, stops the exporter and ends the thread. */
  shutdown(): Promise<void>;
  /** Exchanges dropped so far. */
  readonly dropped: number;
}

/** Where tracing's troubles go (the gateway's log). */
export interface TracingLog {
  warn(message: string): void;
  error(message: string, error?: Error): void;
}

export interface ExportThreadDeps {
  readonly serviceVersion?: string;
  readonly log?: TracingLog;
}

export function startExportThread(options: TracingOptions, deps: ExportThreadDeps = {}): ExportThread {
  const workerData: ExportWorkerData = { options, serviceVersion: deps.serviceVersion };
  // The SDK on that thread reads its own settings from process.env: there, the OTEL_* variables
  // the gateway was given (principle 11), not the process's own environment.
  const worker = new Worker(workerEntry(), { workerData, env: options.exportEnv, name: 'a2a-gateway span export' });
  // Tracing must never keep the process alive; flush and shutdown hold it while they wait.
  worker.unref();

  let batch: PackedExchange[] = [];
  let timer: NodeJS.Timeout | undefined;
  let inTransit = 0;
  let dropped = 0;
  let alive = true;
  let nextId = 0;
  let lastDropReport = -Infinity;
  const waiting = new Map<number, () => void>();

  const post = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (batch.length === 0 || !alive) return;
    const message: ToExportThread = { type: 'exchanges', exchanges: batch };
    batch = [];
    worker.postMessage(message);
  };

  const ask = (type: 'flush' | 'shutdown'): Promise<void> => {
    post();
    if (!alive) return Promise.resolve();
    const id = nextId++;
    worker.ref();
    return new Promise<void>((resolve) => {
      waiting.set(id, resolve);
      worker.postMessage({ type, id } satisfies ToExportThread);
    }).finally(() => {
      if (waiting.size === 0) worker.unref();
    });
  };

  const stop = () => {
    alive = false;
    batch = [];
    if (timer) clearTimeout(timer);
    for (const resolve of waiting.values()) resolve();
    waiting.clear();
  };

  const drop = () => {
    dropped++;
    const now = Date.now();
    if (alive && now - lastDropReport >= REPORT_INTERVAL_MS) {
      lastDropReport = now;
      deps.log?.warn(
        `span export is behind: ${dropped} sampled exchange(s) dropped so far (OTEL_BSP_MAX_QUEUE_SIZE=${options.maxQueueSize})`,
      );
    }
    return false;
  };

  worker.on('message', (message: FromExportThread) => {
    switch (message.type) {
      case 'taken':
        inTransit -= message.count;
        break;
      case 'done':
        waiting.get(message.id)?.();
        waiting.delete(message.id);
        break;
      case 'log':
        deps.log?.[message.level](`span export: ${message.message}`);
        break;
    }
  });
  worker.on('error', (error) => {
    stop();
    deps.log?.error('the span export thread failed: tracing stopped, traffic continues', error);
  });
  worker.on('exit', stop);

  return {
    ship(exchange) {
      if (!alive || inTransit >= options.maxQueueSize) return drop();
      inTransit++;
      batch.push(exchange);
      if (batch.length >= BATCH) post();
      else if (!timer) timer = setTimeout(post, LINGER_MS).unref();
      return true;
    },
    forceFlush: () => ask('flush'),
    async shutdown() {
      await ask('shutdown');
      await worker.terminate();
    },
    get dropped() {
      return dropped;
    },
  };
}

/**
 * The compiled worker next to this file; run from TypeScript source (the tests, under vitest), a
 * small ES module that loads the TypeScript worker through tsx, a dev dependency.
 */
function workerEntry(): URL {
  const fromSource = import.meta.url.endsWith('.ts');
  return new URL(fromSource ? './export-worker-source.mjs' : './export-worker.js', import.meta.url);
}
