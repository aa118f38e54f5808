import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Utf8Stream } from '../../src/codec/utf8-stream.js';
import { splitAt } from '../support/chunks.js';

/** What it must equal: TextDecoder in stream mode. */
function reference(chunks: Uint8Array[]): string {
  const decoder = new TextDecoder();
  return chunks.map((chunk) => decoder.decode(chunk, { stream: true })).join('') + decoder.decode();
}

function ours(chunks: Uint8Array[]): string {
  const stream = new Utf8Stream();
  return chunks.map((chunk) => stream.decode(chunk)).join('') + stream.flush();
}

/** Bytes near UTF-8's edges: BOM, lead bytes of every length, invalid leads, continuation bounds. */
const edgeByte = fc.oneof(
  fc.integer({ min: 0, max: 255 }),
  fc.constantFrom(
    0x0a,
    0x41,
    0x7f,
    0x80,
    0x8f,
    0x90,
    0x9f,
    0xa0,
    0xbb,
    0xbf,
    0xc0,
    0xc1,
    0xc2,
    0xdf,
    0xe0,
    0xed,
    0xef,
    0xf0,
    0xf4,
    0xf5,
    0xff,
  ),
);

describe('Utf8Stream decodes as TextDecoder in stream mode', () => {
  it('on arbitrary bytes and chunkings (property)', () => {
    fc.assert(
      fc.property(fc.array(edgeByte, { maxLength: 48 }), fc.array(fc.nat(), { maxLength: 10 }), (bytes, cuts) => {
        const chunks = splitAt(Uint8Array.from(bytes), cuts);
        expect(ours(chunks)).toBe(reference(chunks));
      }),
      { numRuns: 2000 },
    );
  });

  it('on valid text, with or without a BOM, split at every offset', () => {
    const text = new TextEncoder().encode('\ufeffdata: héllo – ✓ 𝄞 \ufeff end');
    for (const bytes of [text, text.subarray(3)]) {
      for (let a = 0; a <= bytes.length; a++) {
        for (let b = a; b <= bytes.length; b += 3) {
          const chunks = splitAt(bytes, [a, b]);
          expect(ours(chunks)).toBe(reference(chunks));
        }
      }
    }
  });

  it('byte by byte, and after a reset as a new decoder', () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, 0x41, 0xf0, 0x9d, 0x84, 0x9e, 0xe2, 0x82]);
    const single = Array.from(bytes, (b) => Uint8Array.of(b));
    expect(ours(single)).toBe(reference(single));
    const stream = new Utf8Stream();
    stream.decode(bytes.subarray(0, 6));
    stream.reset();
    expect(stream.decode(bytes) + stream.flush()).toBe(reference([bytes]));
  });
});
