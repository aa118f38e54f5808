/**
 * Cost of the decoders per exchange on the recorded captures. Run: `npx tsx test/a2a/decoder-bench.ts`.
 * Not a test. Bodies are pushed in the recorded TCP reads where a .timing.txt exists, else whole.
 * Printed next to the cost of the bare minimum — decoding the bytes to text and JSON.parse of each
 * body or SSE event — so the ratio stays meaningful on a loaded machine.
 */
import { createRequestDecoder } from '../../src/a2a/request.js';
import { createResponseDecoder } from '../../src/a2a/response.js';
import { listCaptures, loadCapture, type Capture } from './captures.js';

function chunksOf(c: Capture): Uint8Array[] {
  const body = c.response?.body ?? new Uint8Array(0);
  if (c.reads === undefined) return [body];
  let at = 0;
  return c.reads.map((r) => body.subarray(at, (at += r.bytes)));
}

function once(c: Capture, chunks: Uint8Array[]): void {
  const req = createRequestDecoder(c.request, { maxBytes: 256 * 1024 });
  req.push(c.request.body);
  const facts = req.end();
  if (c.response === undefined) return;
  const res = createResponseDecoder(facts, { status: c.response.status, contentType: c.response.headers['content-type'] }, { maxBytes: 256 * 1024 });
  for (const chunk of chunks) res.push(chunk);
  res.end({ aborted: c.response.aborted });
}

const utf8 = new TextDecoder();

/** The floor: text-decode and JSON.parse every JSON document of the exchange, nothing else. */
function baseline(c: Capture): void {
  if (c.request.body.length > 0) tryParse(utf8.decode(c.request.body));
  const body = c.response === undefined ? '' : utf8.decode(c.response.body);
  if (c.response?.headers['content-type']?.startsWith('text/event-stream') === true) {
    for (const line of body.split('\n')) if (line.startsWith('data: ')) tryParse(line.slice(6));
  } else if (body !== '') tryParse(body);
}

function tryParse(text: string): void {
  try {
    JSON.parse(text);
  } catch {
    // malformed captures are part of the set
  }
}

function timePerRun(fn: () => void, runs: number): number {
  for (let i = 0; i < runs / 10; i++) fn();
  const start = performance.now();
  for (let i = 0; i < runs; i++) fn();
  return ((performance.now() - start) * 1000) / runs;
}

const groups = new Map<string, { us: number; floor: number; n: number; bytes: number }>();
for (const name of listCaptures().filter((n) => !n.includes('--push-'))) {
  const c = loadCapture(name);
  const chunks = chunksOf(c);
  const us = timePerRun(() => once(c, chunks), 2000);
  const floor = timePerRun(() => baseline(c), 2000);
  const kind = c.response === undefined ? 'request only' : c.response.headers['content-type']?.startsWith('text/event-stream') ? 'SSE stream' : 'unary';
  const g = groups.get(kind) ?? { us: 0, floor: 0, n: 0, bytes: 0 };
  groups.set(kind, { us: g.us + us, floor: g.floor + floor, n: g.n + 1, bytes: g.bytes + c.request.body.length + (c.response?.body.length ?? 0) });
}
for (const [kind, g] of groups) {
  console.log(
    `${kind.padEnd(14)} ${String(g.n).padStart(3)} captures, ${(g.bytes / g.n).toFixed(0).padStart(5)} body bytes: ` +
      `decoders ${(g.us / g.n).toFixed(1)} µs per exchange, JSON.parse floor ${(g.floor / g.n).toFixed(1)} µs (×${(g.us / g.floor).toFixed(1)})`,
  );
}
