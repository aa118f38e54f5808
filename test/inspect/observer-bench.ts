/**
 * Cost per exchange of each observer and of request classification, on bench scenario 1's
 * exchange (SendMessage → 251 B direct Message, bench/lib/payloads.mjs). Not a test. Run:
 * `node --expose-gc --import tsx test/inspect/observer-bench.ts` (without --expose-gc the bytes
 * column is left out). CPU time in alternating short rounds, medians; bytes = heap growth over
 * 1000 calls between two forced GCs (garbage each exchange leaves for the collector).
 *
 * Results (2 shared cores under other load, Node 20, the same code compiled by tsc as dist/;
 * under tsx every figure is higher, issue #17):
 *
 *   component                 µs CPU   bytes     note
 *   request classification     2.9     1.9 KB   JSON.parse of the request (runs with inspection off too)
 *   inspector (3 hooks)        4.3     2.5 KB   ~1.3 µs is decoding (JSON.parse is the floor)
 *   metrics                    0.1     0.1 KB
 *   recent exchanges           0.0     0
 *   console stats, feed        0.1     0
 *   access log (pino)          5.7–6   4–13 KB  sonic-boom re-measures its batch string per line
 *     … in buffer mode         4.2–4.3  4.6 KB  (src/log.ts; under tsx, against 6.2 µs / 13 KB before)
 *
 * Against ~110–140 µs of CPU per proxied request (bench/RESULTS.md), inspection's own share is
 * ~4 %; what telemetry does per exchange is dominated by the access log line.
 */
import { createInspector } from '../../src/inspect/inspector.js';
import { createRequestDecoder, type RequestFacts } from '../../src/a2a/request.js';
import { accessLog } from '../../src/telemetry/access-log.js';
import { createLogger } from '../../src/log.js';
import { createMetrics } from '../../src/telemetry/metrics/metrics.js';
import { RecentExchanges } from '../../src/inspect/recent.js';
import { ConsoleStats } from '../../src/console/stats.js';
import { TaskTracker } from '../../src/tasks/tracker.js';
import { InMemoryTaskStore } from '../../src/tasks/memory-store.js';
import { InspectionBudget } from '../../src/inspect/budget.js';
import type { Exchange } from '../../src/exchange/exchange.js';
import { Registry } from 'prom-client';
// @ts-expect-error: the bench harness is plain ESM JavaScript without types
import { sendMessageRequest, SMALL_MESSAGE_RESPONSE } from '../../bench/lib/payloads.mjs';

const requestBody = Buffer.from(sendMessageRequest() as string);
const responseBody = Buffer.from(SMALL_MESSAGE_RESPONSE as string);
const head = {
  method: 'POST',
  path: '/a2a/jsonrpc',
  query: '',
  headers: { 'content-type': 'application/json', accept: 'application/json', 'a2a-version': '1.0' },
};
const responseHeaders = { 'content-type': 'application/json', 'content-length': String(responseBody.length) };

function classify(): RequestFacts {
  const decoder = createRequestDecoder(head, { maxBytes: 256 * 1024 });
  decoder.push(requestBody);
  return decoder.end({ aborted: false });
}

/** Just what the observers read of an exchange. */
function exchangeOf(request: RequestFacts): Exchange {
  const record = {
    id: 'x1',
    agent: 'a',
    httpMethod: 'POST',
    path: '/a2a/jsonrpc',
    startedAt: Date.now(),
    status: 200,
    bytesIn: requestBody.length,
    bytesOut: responseBody.length,
    gatewayKeepalives: 0,
    durationMs: 1,
    outcome: 'complete' as const,
    findings: [],
  };
  const fake = { request, record, startedAtMonotonic: 0, state: new Map(), call: { headers: {} } };
  return fake as unknown as Exchange;
}

const request = classify();
const inspector = createInspector({
  maxBytes: 256 * 1024,
  tracker: new TaskTracker(new InMemoryTaskStore({ maxTasks: 10_000, ttlMs: 3_600_000 })),
  budget: new InspectionBudget(64 * 1024 * 1024),
});
const inspect = (exchange: Exchange) => {
  inspector.onResponseStart!(exchange, 200, responseHeaders);
  inspector.onResponseChunk!(exchange, responseBody);
  inspector.onFinish!(exchange);
};
const inspected = exchangeOf(request);
inspect(inspected);
const metrics = createMetrics(new Registry(), { agents: ['a'], processMetrics: false }).observer;
const recent = new RecentExchanges(200).observer;
const stats = new ConsoleStats(['a']).observer;
const log = accessLog(createLogger('info', '/dev/null'));

const components: Record<string, () => void> = {
  'request classification': () => void classify(),
  'inspector (3 hooks)': () => inspect(exchangeOf(request)),
  metrics: () => metrics.onFinish!(inspected),
  'recent exchanges': () => recent.onFinish!(inspected),
  'console stats': () => {
    stats.onResponseStart!(inspected, 200, responseHeaders);
    stats.onFinish!(inspected);
  },
  'access log': () => log.onFinish!(inspected),
};

// Let the log destination open first: the loops below never yield to it.
await new Promise((resolve) => setTimeout(resolve, 200));
const gc = (globalThis as { gc?: () => void }).gc;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;
const cpu: Record<string, number[]> = {};
const bytes: Record<string, number[]> = {};
for (let round = 0; round < 11; round++) {
  for (const [name, run] of Object.entries(components)) {
    if (gc) {
      gc();
      const before = process.memoryUsage().heapUsed;
      for (let i = 0; i < 1000; i++) run();
      (bytes[name] ??= []).push((process.memoryUsage().heapUsed - before) / 1000);
    }
    const started = process.cpuUsage();
    for (let i = 0; i < 5000; i++) run();
    const used = process.cpuUsage(started);
    if (round >= 2) (cpu[name] ??= []).push((used.user + used.system) / 5000);
  }
}
for (const name of Object.keys(components)) {
  const b = bytes[name] ? `${median(bytes[name]).toFixed(0).padStart(6)} B` : '';
  console.log(`${name.padEnd(24)} ${median(cpu[name]!).toFixed(2).padStart(6)} µs ${b}`);
}
