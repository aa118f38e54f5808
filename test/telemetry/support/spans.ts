/** The export thread's span recorder writing into memory, so tests can read the spans it makes. */
import { resourceFromAttributes } from '@opentelemetry/resources';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import type { FinishedExchange } from '../../../src/telemetry/tracing/exchange-pack.js';
import { spanRecorder, type SpanLimitOptions } from '../../../src/telemetry/tracing/record-spans.js';

/** Records a finished exchange's spans and returns them in the order they ended. */
export type RecordSpans = (finished: FinishedExchange) => ReadableSpan[];

export function recordInMemory(limits: Partial<SpanLimitOptions> = {}): RecordSpans {
  const exporter = new InMemorySpanExporter();
  const record = spanRecorder({
    resource: resourceFromAttributes({ 'service.name': 'gw' }),
    // Exports each span as it ends, synchronously into the exporter's list.
    spanProcessor: new SimpleSpanProcessor(exporter),
    limits: { attributeCount: 128, attributeValueLength: Infinity, eventCount: 128, ...limits },
    serviceVersion: '0.1.0',
  });
  return (finished) => {
    exporter.reset();
    record(finished);
    return exporter.getFinishedSpans();
  };
}
