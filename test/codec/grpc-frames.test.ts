import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeGrpcFrame, GrpcFrameReader } from '../../src/codec/grpc-frames.js';
import { splitAt } from '../support/chunks.js';

const bytes = (...values: number[]) => new Uint8Array(values);

function read(chunks: Uint8Array[], max = 1024) {
  const reader = new GrpcFrameReader(max);
  const messages: { message: number[]; compressed: boolean }[] = [];
  let maxHeld = 0;
  for (const chunk of chunks) {
    reader.push(chunk, (message, compressed) => messages.push({ message: [...message], compressed }));
    maxHeld = Math.max(maxHeld, reader.heldBytes);
  }
  return { reader, messages, maxHeld };
}

describe('GrpcFrameReader', () => {
  const body = new Uint8Array([
    ...encodeGrpcFrame(bytes(1, 2, 3)),
    ...encodeGrpcFrame(bytes()),
    0x01,
    0,
    0,
    0,
    2,
    9,
    9, // a compressed message
    ...encodeGrpcFrame(bytes(7)),
  ]);
  const expected = [
    { message: [1, 2, 3], compressed: false },
    { message: [], compressed: false },
    { message: [9, 9], compressed: true },
    { message: [7], compressed: false },
  ];

  it('splits length-prefixed messages, empty and compressed ones included', () => {
    const { reader, messages } = read([body]);
    expect(messages).toEqual(expected);
    expect(reader.messages).toBe(4);
    expect(reader.midMessage).toBe(false);
    expect(reader.heldBytes).toBe(0);
    expect(reader.bytes).toBe(body.length);
  });

  it('gives the same messages at every split offset, and in single bytes', () => {
    for (let cut = 0; cut <= body.length; cut++) {
      expect(read(splitAt(body, [cut])).messages).toEqual(expected);
    }
    expect(read([...body].map((b) => bytes(b))).messages).toEqual(expected);
  });

  it('hands a message lying whole in one chunk over as a view of it, not a copy', () => {
    const chunk = encodeGrpcFrame(bytes(4, 5));
    let seen: Uint8Array | undefined;
    new GrpcFrameReader(16).push(chunk, (message) => (seen = message));
    expect(seen?.buffer).toBe(chunk.buffer);
  });

  it('skips a message longer than the cap without holding it, and counts it', () => {
    const big = encodeGrpcFrame(new Uint8Array(10_000).fill(1));
    const all = new Uint8Array([...big, ...encodeGrpcFrame(bytes(3))]);
    const { reader, messages, maxHeld } = read(splitAt(all, [3, 100, 5000, 9999, 10_004]), 100);
    expect(messages).toEqual([{ message: [3], compressed: false }]);
    expect(reader.skipped).toBe(1);
    expect(reader.messages).toBe(1);
    expect(maxHeld).toBeLessThanOrEqual(100);
  });

  it('says when the body ended inside a message or its prefix', () => {
    const frame = encodeGrpcFrame(bytes(1, 2, 3));
    expect(read([frame.subarray(0, 3)]).reader.midMessage).toBe(true);
    expect(read([frame.subarray(0, 6)]).reader.midMessage).toBe(true);
    expect(read([frame.subarray(0, 6)]).reader.heldBytes).toBe(1);
  });

  it('reads a length with the top bit set as large, not negative', () => {
    const { reader } = read([bytes(0, 0x80, 0, 0, 0, 1, 2)], 1024);
    expect(reader.skipped).toBe(1);
    expect(reader.midMessage).toBe(true);
  });

  it('never throws and never holds more than the cap plus the prefix, whatever the bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.array(fc.nat(300)), fc.nat(64), (body, cuts, max) => {
        const { maxHeld } = read(splitAt(body, cuts), max);
        expect(maxHeld).toBeLessThanOrEqual(Math.max(max, 5));
      }),
    );
  });
});

describe('encodeGrpcFrame', () => {
  it('writes the flag 0 and the big-endian length', () => {
    expect([...encodeGrpcFrame(new Uint8Array(0x0102))].slice(0, 5)).toEqual([0, 0, 0, 1, 2]);
  });
});
