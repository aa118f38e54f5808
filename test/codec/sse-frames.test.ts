/**
 * The SSE framer of stream resume (src/codec/sse-frames.ts): every byte comes out once and in
 * order, in any chunking, and an `id:` line added to each event leaves every event's data and
 * type as a client reads them (eventsource-parser, the repository's SSE oracle) untouched.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createParser } from 'eventsource-parser';
import {
  blankLengthOf,
  createSseFramer,
  frameData,
  singleLineData,
  withFieldLine,
} from '../../src/codec/sse-frames.js';
import { splitAt } from '../support/chunks.js';

interface Seen {
  readonly data: string;
  readonly event: string | undefined;
  readonly id: string | undefined;
}

function parse(bytes: Uint8Array): Seen[] {
  const out: Seen[] = [];
  const parser = createParser({ onEvent: (e) => out.push({ data: e.data, event: e.event, id: e.id }) });
  parser.feed(new TextDecoder().decode(bytes));
  return out;
}

const text = fc.string({ unit: fc.constantFrom('a', 'é', '✓', ':', ' ', '{', '"', '.'), maxLength: 10 });
const line = fc.oneof(
  text.map((t) => `data: ${t}`),
  text.map((t) => `data:${t}`),
  fc.constant('data'),
  text.map((t) => `dat${t}`),
  text.map((t) => `event: ${t}`),
  text.map((t) => `id: ${t}`),
  text.map((t) => `:${t}`),
  fc.constantFrom('', '', ''),
);
const ending = fc.constantFrom('\n', '\r', '\r\n');
const stream = fc
  .array(fc.tuple(line, ending), { maxLength: 30 })
  .map((lines) => Buffer.from(lines.map(([l, e]) => l + e).join('')));

/** Frames `chunks` and adds `id: n` to every event with data; returns the output and the ids given. */
function rewrite(chunks: readonly Uint8Array[], max = 1 << 20): { out: Buffer; ids: string[]; passthrough: boolean } {
  const framer = createSseFramer(max);
  const parts: Buffer[] = [];
  const ids: string[] = [];
  for (const chunk of chunks) {
    for (const frame of framer.push(Buffer.from(chunk))) {
      if (!frame.hasData || frame.blankLength === 0) parts.push(frame.bytes);
      else {
        ids.push(`g${ids.length + 1}`);
        parts.push(withFieldLine(frame, Buffer.from(`id: ${ids.at(-1)}\n`)));
      }
    }
  }
  parts.push(framer.rest());
  return { out: Buffer.concat(parts), ids, passthrough: framer.passthrough };
}

describe('SSE framer (stream resume ids)', () => {
  it('passes every byte on once, in order, whole events only, in any chunking', () => {
    fc.assert(
      fc.property(stream, fc.uniqueArray(fc.nat(600), { maxLength: 10 }), (bytes, cuts) => {
        const framer = createSseFramer(1 << 20);
        const out: Buffer[] = [];
        for (const chunk of splitAt(bytes, cuts)) {
          for (const frame of framer.push(Buffer.from(chunk))) {
            out.push(frame.bytes);
            // A frame ends with its blank line, whose line end is `blankLength` bytes.
            expect(blankLengthOf(frame.bytes)).toBe(frame.blankLength);
          }
        }
        expect(Buffer.concat([...out, framer.rest()]).equals(bytes)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('adds an id to every dispatched event and changes no data and no event type', () => {
    fc.assert(
      fc.property(stream, fc.uniqueArray(fc.nat(600), { maxLength: 10 }), (bytes, cuts) => {
        const { out, ids } = rewrite(splitAt(bytes, cuts));
        const before = parse(bytes);
        const after = parse(out);
        expect(after.map(({ data, event }) => ({ data, event }))).toEqual(
          before.map(({ data, event }) => ({ data, event })),
        );
        expect(after.map((e) => e.id)).toEqual(ids); // the gateway's id is the one a client keeps
      }),
      { numRuns: 2000 },
    );
  });

  it("reads every event's data as a client does, one-line events by the short way too", () => {
    fc.assert(
      fc.property(stream, (bytes) => {
        const frames = createSseFramer(1 << 20)
          .push(bytes)
          .filter((f) => f.hasData);
        const seen = parse(bytes);
        expect(frames.map((f) => frameData(f))).toEqual(seen.map((e) => e.data));
        frames.forEach((f, i) => {
          const single = singleLineData(f);
          const text = f.bytes.toString();
          // Taken only for one data line ended by LF and a blank LF, and then the client's data.
          if (single !== undefined) {
            expect(text.split('\n')).toHaveLength(3);
            expect(text).not.toContain('\r');
            expect(single).toBe(seen[i]!.data);
          } else if (/^data(:[^\r\n]*)?\n\n$/.test(text)) throw new Error(`short way missed: ${JSON.stringify(text)}`);
        });
      }),
      { numRuns: 2000 },
    );
    const one = (s: string) => singleLineData(createSseFramer(1024).push(Buffer.from(s))[0]!);
    expect(one('data: {"a":1}\n\n')).toBe('{"a":1}');
    expect(one('data:x\n\n')).toBe('x');
    expect(one('data\n\n')).toBe('');
    expect(one('data: a\r\n\r\n')).toBeUndefined();
    expect(one('event: x\ndata: a\n\n')).toBeUndefined();
    expect(one('data: a\ndata: b\n\n')).toBeUndefined();
    expect(one('dat: a\n\n')).toBeUndefined();
  });

  it("reads an event's data as a client does", () => {
    const [frame] = createSseFramer(1024).push(Buffer.from('event: x\r\ndata: {"a":\r\ndata:1}\r\n\r\n'));
    expect(frame!.hasData).toBe(true);
    expect(frameData(frame!)).toBe('{"a":\n1}');
  });

  it('gives up on an event longer than the cap: the bytes go on unframed, nothing held', () => {
    const big = Buffer.from(`data: ${'x'.repeat(100)}`);
    const framer = createSseFramer(50);
    const frames = framer.push(big);
    expect(framer.passthrough).toBe(true);
    expect(Buffer.concat(frames.map((f) => f.bytes)).equals(big)).toBe(true);
    expect(framer.push(Buffer.from('\n\ndata: y\n\n'))[0]!.blankLength).toBe(0);
  });
});
