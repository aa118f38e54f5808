// What protocol translation costs in itself, without the network and without the gateway around
// it (bench/ANALYSIS.md, "Protocol translation"): the built translators (dist/translate/) run in
// this process on the bench's own bodies, each against what a plain JSON.parse + JSON.stringify of
// the same bytes costs. Per call: the 1.0 SendMessage down to 0.3 and the 0.3 answers back up
// (scenario 1's Message, scenario 2's ~10 KB Task, scenario 11's GetTask). Per event: one 0.3
// status-update of each size through TranslatedEvents (src/translate/event-stream.ts), as the
// HTTP relay pushes it. Single thread, no I/O; the numbers move with the machine's load.
//
//   npm run build && node bench/translate-micro.mjs [--ms 1500]
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { repoDir } from './lib/paths.mjs';
import { SMALL_MESSAGE_RESPONSE_03, TASK_10K_RESPONSE_03, sendMessageRequest } from './lib/payloads.mjs';

const { values } = parseArgs({ options: { ms: { type: 'string', default: '1500' } } });
const budgetMs = Number(values.ms);
const dist = (f) => import(pathToFileURL(path.join(repoDir, 'dist', 'translate', f)).href);
const { rpcRequest } = await dist('jsonrpc.js');
const { translateAnswer } = await dist('answer.js');
const { TranslatedEvents } = await dist('event-stream.js');
const { createSseFramer, frameData } = await import(
  pathToFileURL(path.join(repoDir, 'dist', 'codec', 'sse-frames.js')).href
);

const t = (operation) => ({ binding: 'jsonrpc', operation, caller: '1.0', agent: '0.3' });

/** µs per call of `fn`, after a warm-up, over about `budgetMs`. */
function time(fn) {
  for (let i = 0; i < 2000; i++) fn();
  let n = 0;
  const t0 = process.hrtime.bigint();
  const end = t0 + BigInt(budgetMs) * 1_000_000n;
  let now = t0;
  while (now < end) {
    for (let i = 0; i < 200; i++) fn();
    n += 200;
    now = process.hrtime.bigint();
  }
  return Number(now - t0) / 1000 / n;
}

/** The body work of src/bindings/http/translate.ts, call side (translateCall) and answer side (translatedBody). */
const callDown = (bytes) => () =>
  Buffer.from(JSON.stringify(rpcRequest(JSON.parse(bytes.toString('utf8')), 'SendMessage', '0.3')));
const answerUp = (bytes, op) => () =>
  Buffer.from(JSON.stringify(translateAnswer(t(op), JSON.parse(bytes.toString('utf8')), 200)));
const parseOnly = (bytes) => () => Buffer.from(JSON.stringify(JSON.parse(bytes.toString('utf8'))));

/** A 0.3 status-update event (as bench/servers/sse-upstream.mjs writes them) of about `bytes`. */
function event03(bytes) {
  const head =
    'data: {"jsonrpc":"2.0","id":1,"result":{"kind":"status-update","taskId":"44613eb1-1bae-47be-9266-fc61120b565f",' +
    '"contextId":"eb787aca-97f9-4b1e-85cf-4a93124511c2","metadata":{"seq":1,"sentMono":19475421.179},' +
    '"status":{"state":"working","timestamp":"2026-12-04T17:52:03.047Z","message":{"kind":"message",' +
    '"messageId":"6117a51c-73de-4c4d-92f7-147e86da31a8","contextId":"eb787aca-97f9-4b1e-85cf-4a93124511c2",' +
    '"taskId":"44613eb1-1bae-47be-9266-fc61120b565f","role":"agent","parts":[{"kind":"text","text":"';
  const tail = '"}]}},"final":false}}\n\n';
  return Buffer.from(head + 'x'.repeat(Math.max(0, bytes - head.length - tail.length)) + tail);
}

const rows = [];
const row = (what, bytes, translated, plain) =>
  rows.push({ what, bytes, translated, plain, rebuild: translated - plain, perKB: (translated / bytes) * 1024 });

const send = Buffer.from(sendMessageRequest());
row('call: SendMessage 1.0 → message/send 0.3', send.length, time(callDown(send)), time(parseOnly(send)));
for (const [what, body, op] of [
  ['answer: Message 0.3 → 1.0 (scenario 1)', SMALL_MESSAGE_RESPONSE_03, 'SendMessage'],
  ['answer: Task 0.3 → 1.0 (scenario 2)', TASK_10K_RESPONSE_03, 'SendMessage'],
  ['answer: GetTask 0.3 → 1.0 (scenario 11)', TASK_10K_RESPONSE_03, 'GetTask'],
]) {
  const bytes = Buffer.from(body);
  row(what, bytes.length, time(answerUp(bytes, op)), time(parseOnly(bytes)));
}
const pieces = [];
for (const size of [512, 4096, 32768]) {
  const ev = event03(size);
  const events = new TranslatedEvents(t('SendStreamingMessage'));
  const data = ev.subarray(6, ev.length - 2);
  row(
    `event: status-update 0.3 → 1.0, ${size} B`,
    ev.length,
    time(() => events.push(ev)),
    time(parseOnly(data)),
  );
  if (events.failure) throw new Error(events.failure);
  // Two of the walks over the event's bytes that come before its JSON (src/codec/sse-frames.ts).
  const framer = createSseFramer(4 * 1024 * 1024);
  const [frame] = framer.push(ev);
  pieces.push({ size, framer: time(() => framer.push(ev)), frameData: time(() => frameData(frame)) });
}

const f = (x, d = 2) => x.toFixed(d);
console.log(`translation alone, this process (${process.version}), ~${budgetMs} ms per line: µs per body or event`);
console.log('| what | bytes | translated µs | JSON.parse + stringify alone µs | the rest µs | µs per KB |');
console.log('| --- | ---: | ---: | ---: | ---: | ---: |');
for (const r of rows)
  console.log(`| ${r.what} | ${r.bytes} | ${f(r.translated)} | ${f(r.plain)} | ${f(r.rebuild)} | ${f(r.perKB)} |`);
console.log('\nof an event, alone: µs');
console.log('| event bytes | SSE framer push | frameData |');
console.log('| ---: | ---: | ---: |');
for (const p of pieces) console.log(`| ${p.size} | ${f(p.framer)} | ${f(p.frameData)} |`);
