import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { compileScanPlan } from '../../src/codec/json-scan-plan.js';
import { locateJson, type SpanHit } from '../../src/codec/json-spans.js';

const enc = new TextEncoder();
const dec = new TextDecoder();

function locate(text: string | Uint8Array, paths: string[]) {
  return locateJson(typeof text === 'string' ? enc.encode(text) : text, compileScanPlan(paths));
}

function hitsOf(text: string, paths: string[]): SpanHit[] {
  const result = locate(text, paths);
  if (!result.ok) throw new Error(`not ok at ${result.at}`);
  return result.hits;
}

const valid = (text: string) => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

describe('locateJson validates like JSON.parse', () => {
  it('accepts every document JSON.parse accepts', () => {
    fc.assert(
      fc.property(fc.json(), (text) => {
        expect(locate(text, ['']).ok).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('agrees with JSON.parse on documents cut or changed at one byte', () => {
    const mutate = fc
      .tuple(fc.json(), fc.nat(), fc.constantFrom('', ',', '}', ']', '"', '\\', ':', '0', '-', 'e', '\u0001', ' '))
      .map(([text, at, insert]) => {
        const i = at % (text.length + 1);
        return text.slice(0, i) + insert + text.slice(i + (insert === '' ? 1 : 0));
      });
    fc.assert(
      fc.property(mutate, (text) => {
        expect(locate(text, ['']).ok).toBe(valid(text));
      }),
      { numRuns: 1000 },
    );
  });

  it.each([
    '',
    ' ',
    '{',
    '{"a":1,}',
    '[1,]',
    '01',
    '1.',
    '-',
    '1e',
    '.5',
    '+1',
    'tru',
    'nul',
    '"\\x"',
    '"\\u12g4"',
    '"a\nb"',
    '{"a" 1}',
    '{1:2}',
    '[1 2]',
    '{} {}',
    '{"a":1]',
    '[}',
  ])('refuses %j', (text) => {
    expect(valid(text)).toBe(false);
    expect(locate(text, ['']).ok).toBe(false);
  });

  it('accepts a leading UTF-8 BOM and odd whitespace', () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...enc.encode(' \r\n\t{ "a" :\t[ 1 ,2 ] } \n')]);
    const result = locateJson(bytes, compileScanPlan(['a']));
    expect(result.ok && result.hits.map((h) => [h.type, h.count])).toEqual([['array', 2]]);
  });
});

describe('locateJson spans', () => {
  it('gives each wanted value its exact bytes, every occurrence in document order', () => {
    const text = '{"a":{"b":"x\\"y","b" : 12345678901234567890},"a":[{"b":1e400},{"c":2},{"b":null}],"b":true}';
    const hits = hitsOf(text, ['a', 'a.b', 'a.*.b', 'b']);
    expect(hits.map((h) => [h.path, text.slice(h.start, h.end), h.indices])).toEqual([
      ['a', '{"b":"x\\"y","b" : 12345678901234567890}', []],
      ['a.b', '"x\\"y"', []],
      ['a.b', '12345678901234567890', []],
      ['a', '[{"b":1e400},{"c":2},{"b":null}]', []],
      ['a.*.b', '1e400', [0]],
      ['a.*.b', 'null', [2]],
      ['b', 'true', []],
    ]);
    expect(hits[1]!.text).toBe('x"y');
    expect(hits[3]!.count).toBe(3);
  });

  it('lists the members of a wanted object with their key and value ends', () => {
    const text = '{ "x" : 1 , "\\u0075rl":"u", "x":[] }';
    const root = hitsOf(text, [''])[0]!;
    expect(root.members!.map((m) => [m.key, text.slice(m.keyStart, m.valueEnd), m.type])).toEqual([
      ['x', '"x" : 1', 'number'],
      ['url', '"\\u0075rl":"u"', 'string'],
      ['x', '"x":[]', 'array'],
    ]);
  });

  it('matches escaped keys by their decoded text', () => {
    const hits = hitsOf('{"r\\u0065sult":{"u\\/":"\\u00e9"}}', ['result.u/']);
    expect(hits.map((h) => h.text)).toEqual(['é']);
  });

  it('decodes a wanted string only when it is valid UTF-8, and walks on either way', () => {
    const bytes = new Uint8Array([...enc.encode('{"a":"'), 0xff, 0xfe, ...enc.encode('","b":"ok"}')]);
    const result = locateJson(bytes, compileScanPlan(['a', 'b']));
    expect(result.ok && result.hits.map((h) => h.text)).toEqual([undefined, 'ok']);
  });

  it('agrees with JSON.parse on the value at every wanted path (generated documents)', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom('a', 'b', 'c'), fc.jsonValue(), { maxKeys: 3 }), (doc) => {
        const text = JSON.stringify(doc, null, 1);
        const parsed = JSON.parse(text) as Record<string, unknown>;
        for (const hit of hitsOf(text, ['a', 'b', 'c'])) {
          expect(JSON.parse(dec.decode(enc.encode(text).subarray(hit.start, hit.end)))).toEqual(parsed[hit.path]);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('walks 100k-deep nesting without recursion', () => {
    const depth = 100_000;
    const deep = '['.repeat(depth) + ']'.repeat(depth);
    const text = `{"x":${deep},"y":"z","o":${'{"k":'.repeat(depth)}1${'}'.repeat(depth)}}`;
    expect(hitsOf(text, ['y']).map((h) => h.text)).toEqual(['z']);
    expect(locate(`{"x":${'['.repeat(depth)}${']'.repeat(depth - 1)}}`, ['']).ok).toBe(false);
  });
});
