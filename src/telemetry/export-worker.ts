/**
 * The export thread (export-thread.ts): receives finished exchanges, makes their spans and feeds
 * them to the SDK's BatchSpanProcessor and OTLP exporter.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { ClientSpanView, ServerSpanView } from './exchange-spans.js';
import { unpackExchange } from './exchange-pack.js';
import type { ExportWorkerData, FromExportThread, ToExportThread } from './export-thread.js';
import { createOtlpPipeline } from './otlp-pipeline.js';

const port = parentPort;
if (!port) throw new Error('export-worker.ts runs as a worker thread (see export-thread.ts)');
const { options, serviceVersion } = workerData as ExportWorkerData;
const { source, processor } = createOtlpPipeline(options, serviceVersion);

const reply = (message: FromExportThread) => port.postMessage(message);

port.on('message', (message: ToExportThread) => {
  switch (message.type) {
    case 'exchanges':
      for (const packed of message.exchanges) {
        const finished = unpackExchange(packed);
        processor.onEnd(new ServerSpanView(source, finished));
        const client = finished.trace.client;
        if (client) processor.onEnd(new ClientSpanView(source, finished, client));
      }
      reply({ type: 'taken', count: message.exchanges.length });
      break;
    case 'flush':
    case 'shutdown': {
      // Export failures are the SDK's to report (its diag log); the caller only waits.
      const done = message.type === 'flush' ? processor.forceFlush() : processor.shutdown();
      void done.catch(() => {}).then(() => reply({ type: 'done', id: message.id }));
      break;
    }
  }
});
