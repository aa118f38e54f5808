import { describe, expect, it } from 'vitest';
import { ByteCarry, ByteParts } from '../../src/codec/byte-carry.js';

const bytes = (n: number, fill: number) => new Uint8Array(n).fill(fill);

describe('ByteCarry', () => {
  it('grows to hold what is appended, and hands its buffer over without a copy', () => {
    const carry = new ByteCarry();
    expect(carry.capacity).toBe(0); // an idle stream holds nothing
    carry.append(bytes(300, 1), 0, 300);
    carry.push(2);
    expect(carry.length).toBe(301);
    const held = carry.bytes;
    const taken = carry.take();
    expect(taken).toBe(held);
    expect(Array.from(taken.subarray(299, 301))).toEqual([1, 2]);
    expect(carry.length).toBe(0);
    expect(carry.capacity).toBe(0);
  });

  it('keeps a small buffer when cleared, and lets a large one go', () => {
    const carry = new ByteCarry();
    carry.append(bytes(1000, 1), 0, 1000);
    const small = carry.capacity;
    carry.clear();
    expect(carry.capacity).toBe(small);
    carry.append(bytes(64 * 1024, 1), 0, 64 * 1024);
    carry.clear();
    expect(carry.capacity).toBe(0);
  });
});

describe('ByteParts', () => {
  it('joins its pieces in order into a buffer of its own', () => {
    const parts = new ByteParts();
    const a = Uint8Array.of(1, 2, 3);
    const b = bytes(5000, 9);
    parts.append(a, 1, 3);
    parts.append(b, 0, 5000);
    parts.append(a, 0, 0);
    expect(parts.length).toBe(5002);
    const joined = parts.join();
    expect(joined.length).toBe(5002);
    expect(Array.from(joined.subarray(0, 3))).toEqual([2, 3, 9]);
    expect(joined.buffer).not.toBe(b.buffer);
    expect(parts.length).toBe(0);
  });

  it('copies a short piece (it must not keep its chunk) and keeps a long one as a view', () => {
    const parts = new ByteParts();
    const chunk = bytes(64 * 1024, 7);
    parts.append(chunk, chunk.length - 10, chunk.length); // a line cut at the end of a read
    parts.append(chunk, 0, 8 * 1024);
    chunk.fill(0); // what a view would now see
    const joined = parts.join();
    expect(Array.from(joined.subarray(0, 10))).toEqual(Array(10).fill(7));
    expect(joined[10]).toBe(0);
  });
});
