/**
 * The byte-level SSE decoder (src/codec/sse.ts) against `eventsource-parser`, the library it
 * replaced, on random streams: every kind of line, every line end, a BOM, invalid UTF-8, an
 * unterminated last line, any chunking. The library reads the stream decoded whole, as a W3C
 * client would (HTML "server-sent events" §9.2.6); both must give the same events and counts.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createParser } from 'eventsource-parser';
import { createSseDecoder } from '../../src/codec/sse.js';
import { splitAt } from '../support/chunks.js';

const enc = new TextEncoder();

interface Seen {
  events: Array<{ event: string | undefined; id: string | undefined; data: string; unterminated: boolean }>;
  comments: number;
  retries: number;
  invalidLines: number;
  unterminated: boolean;
}

/** What eventsource-parser sees in the whole stream, with the old decoder's end-of-stream rule. */
function oracle(bytes: Uint8Array): Seen {
  const seen: Seen = { events: [], comments: 0, retries: 0, invalidLines: 0, unterminated: false };
  let atEof = false;
  const parser = createParser({
    onEvent: (e) => {
      if (atEof) seen.unterminated = true;
      seen.events.push({ event: e.event, id: e.id, data: e.data, unterminated: atEof });
    },
    onComment: () => void seen.comments++,
    onRetry: () => void seen.retries++,
    onError: () => void seen.invalidLines++,
  });
  const text = new TextDecoder().decode(bytes);
  parser.feed(text);
  // A CR at the very end already ends its line (the parser waits for a possible LF).
  if (text.endsWith('\r')) parser.feed('\n');
  atEof = true;
  parser.feed('\n\n');
  return seen;
}

function ours(chunks: Uint8Array[]): Seen {
  const seen: Seen = { events: [], comments: 0, retries: 0, invalidLines: 0, unterminated: false };
  const decoder = createSseDecoder({
    maxEventBytes: 1 << 20,
    onEvent: (e) => seen.events.push({ event: e.event, id: e.id, data: e.data, unterminated: e.unterminated === true }),
  });
  for (const chunk of chunks) decoder.push(chunk);
  const stats = decoder.end();
  expect(stats.events).toBe(seen.events.filter((e) => !e.unterminated).length);
  return {
    ...seen,
    comments: stats.comments,
    retries: stats.retries,
    invalidLines: stats.invalidLines,
    unterminated: stats.unterminated,
  };
}

const text = fc.string({
  unit: fc.constantFrom('a', 'é', '✓', '𝄞', ':', ' ', '{', '"', '\0', '\uFEFF'),
  maxLength: 12,
});
const line = fc.oneof(
  text.map((t) => `data: ${t}`),
  text.map((t) => `data:${t}`),
  fc.constant('data'),
  fc.constant('data:'),
  text.map((t) => `event: ${t}`),
  fc.constant('event:'),
  text.map((t) => `id: ${t}`),
  fc.constantFrom('retry: 1000', 'retry:5', 'retry: soon', 'retry:', 'retry'),
  text.map((t) => `:${t}`),
  text.map((t) => `${t}: x`),
  fc.constantFrom('', '', ''),
);
const ending = fc.constantFrom('\n', '\r', '\r\n');
const stream = fc
  .record({
    bom: fc.boolean(),
    lines: fc.array(fc.tuple(line, ending), { maxLength: 24 }),
    last: fc.option(line),
    junk: fc.option(fc.constantFrom([0xff], [0xe2, 0x82], [0xc3]), { nil: undefined }),
  })
  .map(({ bom, lines, last, junk }) => {
    const body = enc.encode(lines.map(([l, e]) => l + e).join('') + (last ?? ''));
    const head = bom ? [0xef, 0xbb, 0xbf] : [];
    // Invalid UTF-8 in the middle of the stream: it becomes U+FFFD wherever it lands.
    const at = body.length >> 1;
    return Uint8Array.from([...head, ...body.subarray(0, at), ...(junk ?? []), ...body.subarray(at)]);
  });

describe('SSE decoder against eventsource-parser', () => {
  it('gives the same events and counts on random streams, in any chunking', () => {
    fc.assert(
      fc.property(stream, fc.uniqueArray(fc.nat(400), { maxLength: 8 }), fc.boolean(), (bytes, cuts, buffers) => {
        // Sockets deliver Buffers, which the decoder decodes its own way: both kinds of chunk.
        const chunks = splitAt(bytes, cuts).map((c) => (buffers ? Buffer.from(c) : c));
        expect(ours(chunks)).toEqual(oracle(bytes));
      }),
      { numRuns: 3000 },
    );
  });

  it('gives the same on the streams in the recorded captures, byte by byte', async () => {
    const { listCaptures, loadCapture } = await import('../a2a/captures.js');
    let streams = 0;
    for (const name of listCaptures()) {
      const body = loadCapture(name).response?.body;
      if (body === undefined || !new TextDecoder().decode(body).includes('data:')) continue;
      streams++;
      expect(ours(Array.from(body, (b) => Uint8Array.of(b)))).toEqual(oracle(body));
      expect(ours([body])).toEqual(oracle(body));
    }
    expect(streams).toBeGreaterThan(20);
  });
});
