/**
 * Microbenchmark behind the choice in src/codec/json-body.ts. Run: `npx tsx test/codec/json-bench.ts`.
 * Not a test (no `.test.ts`): numbers depend on the machine. Compares, per body size, the cost of
 * getting the same handful of fields with
 *   parse   — buffer all chunks, one JSON.parse at the end, walk the wanted paths;
 *   scan    — our streaming scanner (json-scan.ts), no buffering;
 *   stream  — @streamparser/json JSONParser with `paths` (emits only the wanted values).
 * Results on the development machine (2 shared cores, Node 20), µs per body, median of 5 runs:
 *   see the numbers printed at the end of a run and the summary in json-body.ts.
 */
import { JSONParser } from '@streamparser/json';
import { compileScanPlan, createJsonScanner } from '../../src/codec/json-scan.js';
import { fieldsFromValue } from '../../src/codec/json-fields.js';

const WANTED = [
  'jsonrpc',
  'id',
  'result.task.id',
  'result.task.contextId',
  'result.task.status.state',
  'result.task.history',
  'result.task.artifacts',
];
const plan = compileScanPlan(WANTED);

function taskBody(extraBytes: number): Uint8Array {
  const message = (i: number) => ({
    messageId: `m-${i}-5d69b796-9561-4eb7-a341-f53646b01591`,
    contextId: '0430e6e1-be99-4981-b467-a7ac1126f4e5',
    taskId: '5e44058f-6b91-41b0-9193-0d07b839bd09',
    role: 'ROLE_AGENT',
    parts: [{ text: 'Working on it...', mediaType: 'text/plain' }],
  });
  const task = {
    id: '5e44058f-6b91-41b0-9193-0d07b839bd09',
    contextId: '0430e6e1-be99-4981-b467-a7ac1126f4e5',
    status: { state: 'TASK_STATE_COMPLETED', message: message(0), timestamp: '2026-11-29T23:06:35.218Z' },
    artifacts: [{ artifactId: 'a1', parts: [{ raw: 'A'.repeat(extraBytes), mediaType: 'application/octet-stream' }] }],
    history: [message(1), message(2), message(3)],
  };
  return new TextEncoder().encode(JSON.stringify({ jsonrpc: '2.0', id: 2, result: { task } }));
}

function chunks(body: Uint8Array, size: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let i = 0; i < body.length; i += size) out.push(body.subarray(i, i + size));
  return out;
}

const utf8 = new TextDecoder();

function viaParse(parts: Uint8Array[]): unknown {
  let length = 0;
  for (const p of parts) length += p.length;
  const buffer = new Uint8Array(length);
  let at = 0;
  for (const p of parts) {
    buffer.set(p, at);
    at += p.length;
  }
  const fields = fieldsFromValue(JSON.parse(utf8.decode(buffer)));
  return WANTED.map((p) => fields.get(p));
}

function viaScan(parts: Uint8Array[]): unknown {
  const scanner = createJsonScanner(plan, { maxScanBytes: Infinity });
  for (const p of parts) scanner.push(p);
  const { fields } = scanner.end();
  return WANTED.map((p) => fields.get(p));
}

function viaStreamParser(parts: Uint8Array[]): unknown {
  const found: unknown[] = [];
  const parser = new JSONParser({ paths: WANTED.map((p) => `$.${p}`), keepStack: false, stringBufferSize: 64 * 1024 });
  parser.onValue = ({ value }) => void found.push(value);
  for (const p of parts) parser.write(p);
  return found;
}

function timeIt(fn: (parts: Uint8Array[]) => unknown, parts: Uint8Array[], budgetMs: number): number {
  let runs = 0;
  const start = performance.now();
  let now = start;
  while (now - start < budgetMs) {
    fn(parts);
    runs++;
    now = performance.now();
  }
  return ((now - start) * 1000) / runs;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/** Structure-heavy: many small tasks (a ListTasks page with history), no long strings. */
function manyTasksBody(tasks: number): Uint8Array {
  const one = JSON.parse(utf8.decode(taskBody(0))).result.task;
  return new TextEncoder().encode(JSON.stringify({ jsonrpc: '2.0', id: 2, result: { tasks: Array(tasks).fill(one) } }));
}

const cases: Array<{ name: string; body: Uint8Array; chunk: number }> = [
  { name: 'task 1.4 KiB, 1 chunk', body: taskBody(0), chunk: 1 << 20 },
  { name: 'task 16 KiB, 1 chunk', body: taskBody(15_000), chunk: 1 << 20 },
  { name: 'list 64 KiB structured, 16 KiB chunks', body: manyTasksBody(45), chunk: 16 * 1024 },
  { name: 'list 1 MiB structured, 64 KiB chunks', body: manyTasksBody(720), chunk: 64 * 1024 },
  { name: 'task 256 KiB, 64 KiB chunks', body: taskBody(256 * 1024), chunk: 64 * 1024 },
  { name: 'task 4 MiB, 64 KiB chunks', body: taskBody(4 * 1024 * 1024), chunk: 64 * 1024 },
];

const rows: string[] = [];
for (const c of cases) {
  const parts = chunks(c.body, c.chunk);
  const budget = c.body.length > 1_000_000 ? 400 : 150;
  const result: Record<string, number> = {};
  for (const [label, fn] of [
    ['parse', viaParse],
    ['scan', viaScan],
    ['stream', viaStreamParser],
  ] as const) {
    fn(parts); // warm up
    result[label] = median(Array.from({ length: 5 }, () => timeIt(fn, parts, budget)));
  }
  rows.push(
    `${c.name.padEnd(30)} parse ${result.parse?.toFixed(1)} µs | scan ${result.scan?.toFixed(1)} µs | @streamparser/json ${result.stream?.toFixed(1)} µs`,
  );
}
console.log(rows.join('\n'));
