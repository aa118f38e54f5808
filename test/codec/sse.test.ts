import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createSseDecoder, type SseEvent, type SseStats } from '../../src/codec/sse.js';
import { splitAt } from '../support/chunks.js';

const enc = new TextEncoder();

function decode(chunks: Uint8Array[], maxEventBytes = 1024): { events: SseEvent[]; stats: SseStats } {
  const events: SseEvent[] = [];
  const decoder = createSseDecoder({ maxEventBytes, onEvent: (e) => events.push(e) });
  for (const chunk of chunks) decoder.push(chunk);
  return { events, stats: decoder.end() };
}

type Expected = { events: Array<Partial<SseEvent>>; stats?: Partial<SseStats> };

/** Inputs with the events a W3C-conforming client must see (HTML "server-sent events" §9.2.6). */
const CASES: Array<{ name: string; input: string | Uint8Array; expected: Expected; maxEventBytes?: number }> = [
  {
    name: 'one data event, LF',
    input: 'data: {"a":1}\n\n',
    expected: { events: [{ data: '{"a":1}', event: undefined, id: undefined }], stats: { events: 1 } },
  },
  {
    name: 'CRLF line ends',
    input: 'event: error\r\ndata: x\r\nid: 7\r\n\r\ndata: y\r\n\r\n',
    expected: { events: [{ event: 'error', data: 'x', id: '7' }, { data: 'y' }] },
  },
  { name: 'CR-only line ends', input: 'data: a\r\rdata: b\r\r', expected: { events: [{ data: 'a' }, { data: 'b' }] } },
  {
    name: 'multi-line data joined with LF, no space after colon',
    input: 'data:first\ndata: second\ndata\n\n',
    expected: { events: [{ data: 'first\nsecond\n' }] },
  },
  {
    name: 'comments are counted and do not dispatch',
    input: ': ping\n\n:\n\ndata: x\n\n: ping\n\n',
    expected: { events: [{ data: 'x' }], stats: { comments: 3, events: 1 } },
  },
  {
    name: 'retry and unknown fields',
    input: 'retry: 1000\nretry: soon\nfoo: bar\ndata: x\n\n',
    expected: { events: [{ data: 'x' }], stats: { retries: 1, invalidLines: 2 } },
  },
  {
    name: 'event without data is not dispatched',
    input: 'event: nothing\n\ndata: x\n\n',
    expected: { events: [{ data: 'x', event: undefined }] },
  },
  {
    name: 'leading BOM is ignored',
    input: new Uint8Array([0xef, 0xbb, 0xbf, ...enc.encode('data: x\n\n')]),
    expected: { events: [{ data: 'x' }] },
  },
  {
    name: 'multi-byte UTF-8 survives any split',
    input: 'data: héllo – ✓ 𝄞\n\n',
    expected: { events: [{ data: 'héllo – ✓ 𝄞' }] },
  },
  {
    name: 'invalid UTF-8 becomes U+FFFD',
    input: new Uint8Array([...enc.encode('data: a'), 0xff, 0xfe, ...enc.encode('b\n\n')]),
    expected: { events: [{ data: 'a\ufffd\ufffdb' }] },
  },
  {
    name: 'stream ends after a CR blank line (terminated)',
    input: 'data: x\r\r',
    expected: { events: [{ data: 'x' }], stats: { events: 1, unterminated: false } },
  },
  {
    name: 'stream cut mid-event reports an unterminated event',
    input: 'data: x\n\ndata: {"cut":',
    expected: {
      events: [{ data: 'x' }, { data: '{"cut":', unterminated: true }],
      stats: { events: 1, unterminated: true },
    },
  },
  {
    name: 'stream ends after a data line but before the blank line',
    input: 'data: x\r\n',
    expected: { events: [{ data: 'x', unterminated: true }], stats: { events: 0, unterminated: true } },
  },
  {
    name: 'oversized event is skipped whole, the next one decoded (LF)',
    input: `data: small\n\ndata: ${'A'.repeat(5000)}\ndata: ${'B'.repeat(5000)}\n\ndata: after\n\n`,
    maxEventBytes: 200,
    expected: { events: [{ data: 'small' }, { data: 'after' }], stats: { oversizeEvents: 1, events: 2 } },
  },
  {
    name: 'oversized event is skipped whole (CRLF)',
    input: `data: ${'A'.repeat(5000)}\r\ndata: ${'B'.repeat(5000)}\r\n\r\ndata: after\r\n\r\n`,
    maxEventBytes: 200,
    expected: { events: [{ data: 'after' }], stats: { oversizeEvents: 1, events: 1 } },
  },
  {
    name: 'oversized event is skipped whole (CR)',
    input: `data: ${'A'.repeat(5000)}\rdata: more\r\rdata: after\r\r`,
    maxEventBytes: 200,
    expected: { events: [{ data: 'after' }], stats: { oversizeEvents: 1, events: 1 } },
  },
  {
    name: 'stream ending inside an oversized event',
    input: `data: ok\n\ndata: ${'A'.repeat(5000)}`,
    maxEventBytes: 200,
    expected: { events: [{ data: 'ok' }], stats: { oversizeEvents: 1, unterminated: true } },
  },
];

function check(result: { events: SseEvent[]; stats: SseStats }, expected: Expected): void {
  expect(result.events.length).toBe(expected.events.length);
  expected.events.forEach((want, i) => expect(result.events[i]).toMatchObject(want));
  if (expected.stats) expect(result.stats).toMatchObject(expected.stats);
}

describe('SSE decoder', () => {
  for (const c of CASES) {
    const bytes = typeof c.input === 'string' ? enc.encode(c.input) : c.input;

    it(`${c.name}: one chunk`, () => check(decode([bytes], c.maxEventBytes), c.expected));

    it(`${c.name}: split at every offset`, () => {
      for (let cut = 0; cut <= bytes.length; cut++) check(decode(splitAt(bytes, [cut]), c.maxEventBytes), c.expected);
    });

    it(`${c.name}: byte by byte and random chunkings`, () => {
      check(
        decode(
          Array.from(bytes, (b) => Uint8Array.of(b)),
          c.maxEventBytes,
        ),
        c.expected,
      );
      fc.assert(
        fc.property(
          fc.uniqueArray(fc.integer({ min: 1, max: Math.max(1, bytes.length - 1) }), { maxLength: 12 }),
          (cuts) => {
            check(decode(splitAt(bytes, cuts), c.maxEventBytes), c.expected);
          },
        ),
        { numRuns: 60 },
      );
    });
  }

  it('a CRLF split across chunks is one line end, not two', () => {
    const result = decode([enc.encode('data: a\r'), enc.encode('\ndata: b\r'), enc.encode('\n\r\n')]);
    check(result, { events: [{ data: 'a\nb' }] });
  });

  it('holds a long line that comes in pieces until its event ends, then nothing', () => {
    const events: SseEvent[] = [];
    const decoder = createSseDecoder({ maxEventBytes: 64 * 1024, onEvent: (e) => events.push(e) });
    const text = 'A'.repeat(40 * 1024);
    const body = enc.encode(`data: ${text}\n\n`);
    let maxHeld = 0;
    for (let at = 0; at < body.length; at += 1000) {
      decoder.push(body.subarray(at, at + 1000));
      maxHeld = Math.max(maxHeld, decoder.heldBytes);
    }
    expect(maxHeld).toBeGreaterThan(text.length - 1000); // all but the last piece
    expect(maxHeld).toBeLessThanOrEqual(text.length + 16);
    expect(decoder.heldBytes).toBe(0);
    expect(events.map((e) => e.data)).toEqual([text]);
    expect(decoder.end()).toMatchObject({ events: 1, oversizeEvents: 0 });
  });

  it('holds a bounded number of bytes while skipping a 20 MB event', () => {
    const events: SseEvent[] = [];
    const decoder = createSseDecoder({ maxEventBytes: 64 * 1024, onEvent: (e) => events.push(e) });
    decoder.push(enc.encode('data: {"task":{"id":"t"}}\n\ndata: {"artifactUpdate":{"raw":"'));
    const block = new Uint8Array(1024 * 1024).fill(0x41);
    let maxHeld = 0;
    for (let i = 0; i < 20; i++) {
      decoder.push(block);
      maxHeld = Math.max(maxHeld, decoder.heldBytes);
    }
    decoder.push(enc.encode('"}}\n\ndata: {"statusUpdate":{}}\n\n'));
    const stats = decoder.end();
    expect(maxHeld).toBeLessThanOrEqual(64 * 1024 + 4 * 1024 + 64 * 1024);
    expect(events.map((e) => e.data)).toEqual(['{"task":{"id":"t"}}', '{"statusUpdate":{}}']);
    expect(stats).toMatchObject({ events: 2, oversizeEvents: 1, unterminated: false });
  });
});
