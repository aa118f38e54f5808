import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { JsonWriter } from '../../src/telemetry/json-writer.js';

const text = (w: JsonWriter) => new TextDecoder().decode(w.bytes());

describe('JsonWriter', () => {
  it('writes strings exactly as JSON.stringify does, short and long, plain and escaped (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'binary', maxLength: 60 }), { maxLength: 8 }), (strings) => {
        const w = new JsonWriter(4);
        strings.forEach((s, i) => (i ? w.literal(',') : w).string(s));
        expect(JSON.parse(`[${text(w)}]`)).toEqual(strings);
        expect(text(w)).toBe(strings.map((s) => JSON.stringify(s)).join(','));
      }),
      { numRuns: 500 },
    );
  });

  it('writes numbers as JSON does and grows past its first buffer', () => {
    const w = new JsonWriter(8);
    const values = [0, -0, 1.5, -3, 1e21, 2 ** 53 + 2, Number.NaN, Number.POSITIVE_INFINITY];
    w.literal('[');
    values.forEach((v, i) => (i ? w.literal(',') : w).number(v));
    w.literal(']').raw(' ').string('x'.repeat(5000));
    expect(text(w)).toBe(`${JSON.stringify(values)} ${JSON.stringify('x'.repeat(5000))}`);
  });

  it('starts over on reset, and bytes() is a copy that later writes do not change', () => {
    const w = new JsonWriter(16);
    const first = w.literal('{"a":').string('b').literal('}').bytes();
    w.reset().literal('[]');
    expect(new TextDecoder().decode(first)).toBe('{"a":"b"}');
    expect(text(w)).toBe('[]');
  });
});
