/**
 * Cost of the decoders per exchange on the recorded captures. Run: `npx tsx test/a2a/decoder-bench.ts`.
 * Not a test. Bodies are pushed in the recorded TCP reads where a .timing.txt exists, else whole.
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

const groups = new Map<string, { us: number; n: number; bytes: number }>();
for (const name of listCaptures().filter((n) => !n.includes('--push-'))) {
  const c = loadCapture(name);
  const chunks = chunksOf(c);
  for (let i = 0; i < 200; i++) once(c, chunks); // warm up
  const runs = 2000;
  const start = performance.now();
  for (let i = 0; i < runs; i++) once(c, chunks);
  const us = ((performance.now() - start) * 1000) / runs;
  const kind = c.response === undefined ? 'request only' : c.response.headers['content-type']?.startsWith('text/event-stream') ? 'SSE stream' : 'unary';
  const g = groups.get(kind) ?? { us: 0, n: 0, bytes: 0 };
  groups.set(kind, { us: g.us + us, n: g.n + 1, bytes: g.bytes + c.request.body.length + (c.response?.body.length ?? 0) });
}
for (const [kind, g] of groups) {
  console.log(`${kind.padEnd(14)} ${g.n} captures, mean ${(g.us / g.n).toFixed(1)} µs per exchange (request + response), mean ${(g.bytes / g.n).toFixed(0)} body bytes`);
}
