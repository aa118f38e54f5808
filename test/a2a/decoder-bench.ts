/**
 * Cost of the decoders per exchange on the recorded captures. Run: `npx tsx test/a2a/decoder-bench.ts`.
 * Not a test. Bodies are pushed in the recorded TCP reads where a .timing.txt exists, else whole.
 * Printed next to the cost of the bare minimum — decoding the bytes to text and JSON.parse of each
 * body or SSE event — so the ratio stays meaningful on a loaded machine: the two are timed in
 * alternating short rounds, in CPU time, and the ratio is the median of the rounds' ratios.
 *
 * Results, ratio to the floor (2 shared cores under other load, Node 20; absolute µs swing with
 * the load, ratios much less):
 *                                     under tsx (this command)     compiled by tsc (as dist/)
 *                                     before        after          before        after
 *   unary, 88 captures, ~687 B        ×5.7–6.0      ×1.6–1.9       ×4.0–4.5      ×1.55–1.8
 *   SSE stream, 23 captures, 1.9 KB   ×5.0–6.5      ×1.6–1.7       ×3.5–3.7      ×1.33–1.35
 *   per SSE event (~500 B)            ×5.1–6.0      ×1.8–1.9       ×3.9–4.0      ×1.43–1.47
 * before: facts looked up by path (`fields.get`), a body copy per request, TextDecoder in stream
 * mode; after: direct property reads, zero-copy parse buffer, a one-shot UTF-8 decoder (since replaced by framing on bytes, src/codec/sse.ts), classes. tsx adds a
 * `__name` call per closure it creates, which is why its ratios are higher. Per event includes
 * each stream's setup; on a long stream of ~480 B statusUpdate events (compiled) an event costs
 * ×1.3–1.4 of JSON.parse of its data.
 * Re-measured 2026-12-01 (issue #17, branch perf-sse, decoders unchanged), under tsx, load
 * average 11–12 on the 2 cores: unary ×2.41–2.49, SSE stream ×2.02–2.04, per SSE event ×2.10–2.14
 * (2.9–3.1 µs against 1.46–1.59 µs for JSON.parse). Higher than above under this load; the
 * per-event breakdown on longer streams is in test/a2a/sse-event-bench.ts.
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
  const res = createResponseDecoder(
    facts,
    { status: c.response.status, contentType: c.response.headers['content-type'] },
    { maxBytes: 256 * 1024 },
  );
  for (const chunk of chunks) res.push(chunk);
  res.end({ aborted: c.response.aborted });
}

const utf8 = new TextDecoder();

/** The floor: text-decode and JSON.parse every JSON document of the exchange, nothing else. */
function baseline(c: Capture): number {
  let documents = 0;
  if (c.request.body.length > 0) tryParse(utf8.decode(c.request.body));
  const body = c.response === undefined ? '' : utf8.decode(c.response.body);
  if (c.response?.headers['content-type']?.startsWith('text/event-stream') === true) {
    for (const line of body.split('\n')) if (line.startsWith('data: ')) documents += tryParse(line.slice(6));
  } else if (body !== '') tryParse(body);
  return documents;
}

function tryParse(text: string): number {
  try {
    JSON.parse(text);
  } catch {
    // malformed captures are part of the set
  }
  return 1;
}

/** CPU µs per call of `fn` over a slice of about `ms` milliseconds. */
function slice(fn: () => void, ms: number): number {
  const wall = performance.now();
  const cpu = process.cpuUsage();
  let runs = 0;
  while (performance.now() - wall < ms) {
    fn();
    runs++;
  }
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / runs;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

const groups = new Map<string, Array<{ c: Capture; chunks: Uint8Array[] }>>();
for (const name of listCaptures().filter((n) => !n.includes('--push-'))) {
  const c = loadCapture(name);
  const kind =
    c.response === undefined
      ? 'request only'
      : c.response.headers['content-type']?.startsWith('text/event-stream')
        ? 'SSE stream'
        : 'unary';
  groups.set(kind, [...(groups.get(kind) ?? []), { c, chunks: chunksOf(c) }]);
}

for (const [kind, members] of groups) {
  const decoders = () => {
    for (const { c, chunks } of members) once(c, chunks);
  };
  const floor = () => {
    for (const { c } of members) baseline(c);
  };
  for (let i = 0; i < 300; i++) {
    decoders();
    floor();
  }
  const ours: number[] = [];
  const bare: number[] = [];
  for (let round = 0; round < 9; round++) {
    ours.push(slice(decoders, 60) / members.length);
    bare.push(slice(floor, 60) / members.length);
  }
  const ratio = median(ours.map((us, i) => us / (bare[i] as number)));
  const bytes =
    members.reduce((sum, { c }) => sum + c.request.body.length + (c.response?.body.length ?? 0), 0) / members.length;
  console.log(
    `${kind.padEnd(14)} ${String(members.length).padStart(3)} captures, ${bytes.toFixed(0).padStart(5)} body bytes: ` +
      `decoders ${Math.min(...ours).toFixed(1)} µs per exchange, JSON.parse floor ${Math.min(...bare).toFixed(1)} µs (×${ratio.toFixed(2)})`,
  );
  if (kind === 'SSE stream') streamEvents(members);
}

/** The response side of streams alone, per event: SSE framing + per-event inspection vs JSON.parse of the event data. */
function streamEvents(members: Array<{ c: Capture; chunks: Uint8Array[] }>): void {
  const prepared = members.map(({ c, chunks }) => {
    const req = createRequestDecoder(c.request, { maxBytes: 256 * 1024 });
    req.push(c.request.body);
    const data = utf8
      .decode(c.response?.body)
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => line.slice(6));
    return { c, chunks, facts: req.end(), data };
  });
  const events = prepared.reduce((sum, p) => sum + p.data.length, 0);
  const bytes = prepared.reduce((sum, p) => sum + (p.c.response?.body.length ?? 0), 0);
  const decode = () => {
    for (const { c, chunks, facts } of prepared) {
      const res = createResponseDecoder(
        facts,
        { status: 200, contentType: 'text/event-stream' },
        { maxBytes: 256 * 1024 },
      );
      for (const chunk of chunks) res.push(chunk);
      res.end({ aborted: c.response?.aborted });
    }
  };
  const parse = () => {
    for (const { data } of prepared) for (const text of data) tryParse(text);
  };
  const ours: number[] = [];
  const bare: number[] = [];
  for (let round = 0; round < 9; round++) {
    ours.push(slice(decode, 60) / events);
    bare.push(slice(parse, 60) / events);
  }
  const ratio = median(ours.map((us, i) => us / (bare[i] as number)));
  console.log(
    `  per event   ${String(events).padStart(3)} events, ${(bytes / events).toFixed(0).padStart(5)} bytes each: ` +
      `response decoder ${Math.min(...ours).toFixed(2)} µs per event, JSON.parse of its data ${Math.min(...bare).toFixed(2)} µs (×${ratio.toFixed(2)})`,
  );
}
