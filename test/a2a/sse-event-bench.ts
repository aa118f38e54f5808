/**
 * Where the CPU of inspecting an SSE stream goes, per event, on events shaped like the
 * benchmark's (bench/servers/sse-upstream.mjs: ~510 B 1.0 JSON-RPC `statusUpdate` with an agent
 * message, or `artifactUpdate`, in 16 KiB reads). Run: `npx tsx test/a2a/sse-event-bench.ts`.
 * Not a test. Each stage is timed in CPU time in alternating short rounds against JSON.parse of
 * the events' data (the floor); printed: best µs per event and the median of the rounds' ratios.
 *
 * Results since the head read (issue #17; 2 shared cores under other load, Node 20, tsx):
 *                              statusUpdate       artifactUpdate
 *   JSON.parse of data         1.73 µs            1.47 µs
 *   SSE framing (bytes)        0.19 (×0.11)       0.19 (×0.13)
 *   framing + data as text     0.39 (×0.25)       0.38 (×0.28)
 *   framing + JSON.parse       2.43 (×1.40)       2.17 (×1.45)
 *   framing + head read        0.72 (×0.44)       0.37 (×0.26)
 *   response decoder, head     0.81 (×0.51)       0.45 (×0.32)
 *   response decoder, full     2.37 (×1.75)       2.43 (×1.68)
 * The head read stops after the state (statusUpdate; this event has `metadata` before its
 * status, skipped) or the task id (artifactUpdate); the bytes a stream repeats before that are
 * compared with memcmp. Text is made only for events parsed whole (the first, and `full`).
 *
 * Before (eventsource-parser over Utf8Stream's text, every event parsed whole), on the same
 * events: JSON.parse 1.37–1.43 µs, UTF-8 decode ×0.05, UTF-8 + framing ×0.10, the whole decoder
 * ×1.33–1.35 (statusUpdate) and ×1.26–1.35 (artifactUpdate). So `full` now costs ~×0.4 of a
 * JSON.parse more per event than the old decoder did (one decode per event instead of one per
 * chunk, ~0.2 µs, and the rest in the readers), and `head`, the default, ~×0.8 less.
 *
 * Tried and dropped (issue #17, branch perf-sse, commit "Experiment: …"): a pass over the
 * event text that validates all of it (so `a2a.invalid-json` stays exact) but builds only the
 * values the readers' plan wants. Validating alone — nothing built, strings skipped with
 * `indexOf('"')` after one control-character regex — cost 1.0–1.1 µs against 1.5 µs for
 * JSON.parse of the same event; with the pruned values built, 1.9–2.1 µs; the decoder with it
 * wired in 2.5–2.7 µs per event. A character loop in JS runs at ~1.2–2 ns per char, V8's parser at
 * ~3 ns per char including every object it makes, so an exact pass cannot gain more than ~30 %.
 * An early exit (stop once kind, ids and state are read) is not exact: shape evidence
 * (`status.message.parts`, `kind`, `final`), duplicate keys (the last wins) and the JSON-RPC `id`
 * may sit anywhere in the event, and invalid JSON after the exit point would go unreported.
 * Nor would it be cheap with a tokenizer like the one tried: reading only the 231 of 725 chars
 * up to `status.state` of such an event cost 0.84 µs against 1.57 µs for JSON.parse of all of
 * it. What the issue's target needs, derived: at 0.6–0.75× of inspection off and ~2 µs of
 * decoding per event, the gateway costs ~3–6 µs per event without inspection; 0.85× allows
 * ~0.5–1 µs of inspection per event, less than JSON.parse alone.
 */
import { createRequestDecoder } from '../../src/a2a/request.js';
import { createResponseDecoder } from '../../src/a2a/response.js';
import { createEventHeadReader } from '../../src/a2a/event-head.js';
import { createSseDecoder } from '../../src/codec/sse.js';

const TASK = '44613eb1-1bae-47be-9266-fc61120b565f';
const CTX = 'eb787aca-97f9-4b1e-85cf-4a93124511c2';

function event(seq: number, kind: 'statusUpdate' | 'artifactUpdate', bytes: number): string {
  const head =
    `data: {"jsonrpc":"2.0","id":1,"result":{"${kind}":{"taskId":"${TASK}","contextId":"${CTX}",` +
    `"metadata":{"seq":${seq},"sentMono":${(1e6 + seq).toFixed(3)}}`;
  const tail =
    kind === 'statusUpdate'
      ? `,"status":{"state":"TASK_STATE_WORKING","timestamp":"2026-12-01T16:07:48.949Z",` +
        `"message":{"messageId":"6117a51c-73de-4c4d-92f7-147e86da31a8","contextId":"${CTX}","taskId":"${TASK}",` +
        `"role":"ROLE_AGENT","parts":[{"text":"@PAD@","mediaType":"text/plain"}]}}}}}\n\n`
      : ',"artifact":{"artifactId":"bench-artifact","name":"bench.txt",' +
        '"parts":[{"text":"@PAD@","mediaType":"text/plain"}]},"append":true,"lastChunk":false}}}\n\n';
  return (head + tail).replace('@PAD@', 'x'.repeat(Math.max(0, bytes - head.length - tail.length + 5)));
}

function stream(kind: 'statusUpdate' | 'artifactUpdate', events: number): { chunks: Uint8Array[]; data: string[] } {
  const first =
    `data: {"jsonrpc":"2.0","id":1,"result":{"task":{"id":"${TASK}","contextId":"${CTX}",` +
    `"status":{"state":"TASK_STATE_SUBMITTED"},"history":[]}}}\n\n`;
  const last =
    `data: {"jsonrpc":"2.0","id":1,"result":{"statusUpdate":{"taskId":"${TASK}","contextId":"${CTX}",` +
    `"status":{"state":"TASK_STATE_COMPLETED"}}}}\n\n`;
  const texts = [first];
  for (let i = 1; i < events - 1; i++) texts.push(event(i, kind, 512));
  texts.push(last);
  const body = Buffer.from(texts.join(''));
  const chunks: Uint8Array[] = [];
  for (let at = 0; at < body.length; at += 16384) chunks.push(body.subarray(at, at + 16384));
  return { chunks, data: texts.map((t) => t.slice(6, -2)) };
}

const reqBody = Buffer.from(
  '{"jsonrpc":"2.0","id":1,"method":"SendStreamingMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"hi"}]}}}',
);
const reqDecoder = createRequestDecoder(
  { method: 'POST', path: '/', query: '', headers: { 'content-type': 'application/json', 'a2a-version': '1.0' } },
  { maxBytes: 256 * 1024 },
);
reqDecoder.push(reqBody);
const reqFacts = reqDecoder.end();

function decodeAll(chunks: Uint8Array[], streamEvents: 'head' | 'full'): void {
  const d = createResponseDecoder(
    reqFacts,
    { status: 200, contentType: 'text/event-stream' },
    { maxBytes: 256 * 1024, streamEvents },
  );
  for (const c of chunks) d.push(c);
  d.end({});
}

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

const median = (v: number[]): number => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)] as number;

for (const kind of ['statusUpdate', 'artifactUpdate'] as const) {
  const { chunks, data } = stream(kind, 200);
  const n = data.length;
  const stages: Record<string, () => void> = {
    'JSON.parse of data': () => {
      for (const d of data) JSON.parse(d);
    },
    'SSE framing (bytes)': () => {
      const d = createSseDecoder({ maxEventBytes: 256 * 1024, onEvent: () => {} });
      for (const c of chunks) d.push(c);
      d.end();
    },
    'framing + data as text': () => {
      const d = createSseDecoder({ maxEventBytes: 256 * 1024, onEvent: (e) => e.data });
      for (const c of chunks) d.push(c);
      d.end();
    },
    'framing + JSON.parse': () => {
      const d = createSseDecoder({ maxEventBytes: 256 * 1024, onEvent: (e) => JSON.parse(e.data) });
      for (const c of chunks) d.push(c);
      d.end();
    },
    'framing + head read': () => {
      const reader = createEventHeadReader({ taskId: TASK, jsonrpcId: '1', wholePayload: false });
      const d = createSseDecoder({
        maxEventBytes: 256 * 1024,
        onEvent: (e) => reader?.read(e.bytes, e.start, e.end),
      });
      for (const c of chunks) d.push(c);
      d.end();
    },
    'response decoder, head': () => decodeAll(chunks, 'head'),
    'response decoder, full': () => decodeAll(chunks, 'full'),
  };
  const names = Object.keys(stages);
  for (let i = 0; i < 200; i++) for (const name of names) stages[name]!();
  const us = new Map<string, number[]>(names.map((name) => [name, []]));
  for (let round = 0; round < 11; round++) {
    for (const name of names) us.get(name)!.push(slice(stages[name]!, 40) / n);
  }
  const floor = us.get('JSON.parse of data')!;
  console.log(`${kind}: ${n} events, ${(chunks.reduce((s, c) => s + c.length, 0) / n).toFixed(0)} B each`);
  for (const name of names) {
    const v = us.get(name)!;
    const ratio = median(v.map((x, i) => x / (floor[i] as number)));
    console.log(
      `  ${name.padEnd(24)} ${Math.min(...v)
        .toFixed(2)
        .padStart(6)} µs/event  ×${ratio.toFixed(2)} of JSON.parse`,
    );
  }
}
