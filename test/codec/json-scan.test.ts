import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { compileScanPlan, createJsonScanner, withContainers } from '../../src/codec/json-scan.js';
import { countOf, firstOf, isObject, isString, scalarOf, str, typeOfValue } from '../../src/codec/json-value.js';
import { fieldsFromValue, type JsonFields } from '../../src/codec/json-fields.js';
import { createJsonBodyReader, PARSE_BUFFER_BYTES } from '../../src/codec/json-body.js';
import { splitAt } from '../support/chunks.js';

const enc = new TextEncoder();

function scan(paths: string[], chunks: Uint8Array[], maxScanBytes = Infinity) {
  const scanner = createJsonScanner(compileScanPlan(paths), { maxScanBytes });
  for (const chunk of chunks) scanner.push(chunk);
  return scanner.end();
}

function snapshot(fields: JsonFields, paths: string[]): Record<string, unknown> {
  return Object.fromEntries(paths.map((p) => [p, fields.get(p)]));
}

/** Every path of a value (array indices as `*`), to depth 5, keys usable in the path syntax. */
function pathsOf(value: unknown, prefix = '', depth = 0, out = new Set<string>()): string[] {
  out.add(prefix);
  if (depth < 5 && value !== null && typeof value === 'object') {
    if (Array.isArray(value)) {
      for (const element of value) pathsOf(element, prefix === '' ? '*' : `${prefix}.*`, depth + 1, out);
    } else {
      for (const [key, child] of Object.entries(value)) {
        if (key === '' || key.includes('.') || key === '*') continue;
        pathsOf(child, prefix === '' ? key : `${prefix}.${key}`, depth + 1, out);
      }
    }
  }
  return [...out];
}

describe('JSON scanner agrees with JSON.parse + path walk', () => {
  const doc =
    '{"jsonrpc":"2.0","id":"a\\"b\\\\","result":{"task":{"id":"t1","status":{"state":"TASK_STATE_WORKING"},' +
    '"history":[{"x":1},{"parts":[1,2]},3],"artifacts":[]},"n":-1.5e3,"b":true,"f":false,"z":null,"u":"\\u00e9\\ud834\\udd1e"}}';
  const paths = pathsOf(JSON.parse(doc)).concat(['result.missing', 'result.task.history.*.nope']);
  const bytes = enc.encode(doc);
  const expected = snapshot(fieldsFromValue(JSON.parse(doc)), paths);

  it('at every split offset', () => {
    for (let cut = 0; cut <= bytes.length; cut++) {
      const { status, fields } = scan(paths, splitAt(bytes, [cut]));
      expect(status).toBe('complete');
      expect(snapshot(fields, paths)).toEqual(expected);
    }
  });

  it('matches keys spelled with escapes or in UTF-8 as their names, at every split offset', () => {
    // Keys are compared as bytes where they have no escape (src/codec/json-scan.ts keyInPlace).
    const text = '{"t\\u0061sk":{"\\u0069d":"t1","étàt":"ok","n\\"q":7},"id":12345678901}';
    const wanted = ['task', 'task.id', 'étàt', 'task.étàt', 'task.n"q', 'id'];
    const body = enc.encode(text);
    const want = snapshot(fieldsFromValue(JSON.parse(text)), wanted);
    expect(want['task.id']).toEqual({ type: 'string', value: 't1' });
    for (let cut = 0; cut <= body.length; cut++) {
      const { status, fields } = scan(wanted, splitAt(body, [cut]));
      expect(status).toBe('complete');
      expect(snapshot(fields, wanted)).toEqual(want);
    }
  });

  it('a member named "*" is not an array element, for the scanner as for the parsed value', () => {
    // Found by the property below (fast-check seed -2054359482).
    const text = '[{"*":0},[""]]';
    const wanted = ['', '*', '*.*'];
    const { fields } = scan(wanted, [enc.encode(text)]);
    expect(fields.get('*.*')).toEqual({ type: 'string', value: '' });
    expect(fieldsFromValue(JSON.parse(text)).get('*.*')).toEqual({ type: 'string', value: '' });
    expect(fieldsFromValue(JSON.parse('[{"*":0}]')).get('*.*')).toBeUndefined();
  });

  it('for arbitrary JSON documents and chunkings (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), fc.array(fc.nat(), { maxLength: 8 }), (value, rawCuts) => {
        const text = JSON.stringify(value);
        const body = enc.encode(text);
        const wanted = pathsOf(JSON.parse(text));
        const cuts = rawCuts.map((c) => c % (body.length + 1));
        const { status, fields } = scan(wanted, splitAt(body, cuts));
        expect(status).toBe('complete');
        expect(snapshot(fields, wanted)).toEqual(snapshot(fieldsFromValue(JSON.parse(text)), wanted));
      }),
      { numRuns: 300 },
    );
  });

  it("the scanner's skeleton reads like the parsed document (property)", () => {
    // What decoders do (json-value.ts): step into objects by key, into arrays by first match.
    const read = (value: unknown, segments: readonly string[]): unknown => {
      if (segments.length === 0) return value;
      const [segment, ...rest] = segments as [string, ...string[]];
      if (segment === '*') return firstOf(value, (element) => read(element, rest));
      if (!isObject(value) || !Object.prototype.hasOwnProperty.call(value, segment)) return undefined;
      return read((value as Record<string, unknown>)[segment], rest);
    };
    const facts = (value: unknown) => ({
      type: typeOfValue(value),
      str: str(value),
      scalar: scalarOf(value),
      count: countOf(value),
      isObject: isObject(value),
      isString: isString(value),
    });
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), fc.array(fc.nat(), { maxLength: 8 }), (value, rawCuts) => {
        const text = JSON.stringify(value);
        const body = enc.encode(text);
        // Plans as decoders write them: below a `*`, single keys only (json-scan-plan.ts).
        const readerShaped = (path: string) => {
          const segments = path === '' ? [] : path.split('.');
          const star = segments.indexOf('*');
          return star < 0 || (star === segments.length - 2 && segments[star + 1] !== '*');
        };
        const wanted = withContainers(pathsOf(JSON.parse(text)).filter(readerShaped));
        const { fields } = scan(
          wanted,
          splitAt(
            body,
            rawCuts.map((c) => c % (body.length + 1)),
          ),
        );
        const skeleton = fields.toValue();
        const parsed: unknown = JSON.parse(text);
        for (const path of wanted) {
          const segments = path === '' ? [] : path.split('.');
          expect(facts(read(skeleton, segments)), path).toEqual(facts(read(parsed, segments)));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('skips a leading BOM, even split across chunks', () => {
    const body = new Uint8Array([0xef, 0xbb, 0xbf, ...enc.encode('{"a":1}')]);
    for (let cut = 0; cut <= body.length; cut++) {
      const { status, fields } = scan(['a'], splitAt(body, [cut]));
      expect(status).toBe('complete');
      expect(fields.get('a')).toEqual({ type: 'number', value: 1 });
    }
  });
});

describe('JSON scanner on hostile input', () => {
  it.each([
    ['unterminated object', '{"a":1'],
    ['trailing garbage', '{"a":1} x'],
    ['bad literal', '{"a":tru}'],
    ['missing colon', '{"a" 1}'],
    ['trailing comma', '{"a":1,}'],
    ['mismatched close', '{"a":[1}'],
    ['bare word', 'hello'],
    ['empty', ''],
  ])('%s is malformed', (_name, text) => {
    expect(scan(['a'], [enc.encode(text)]).status).toBe('malformed');
  });

  it('reports partial, with the fields seen so far, when the cap is reached', () => {
    const text = `{"id":"t1","history":[${'{"m":"x"},'.repeat(1000)}{}],"after":1}`;
    const { status, fields } = scan(['id', 'history', 'after'], [enc.encode(text)], 512);
    expect(status).toBe('partial');
    expect(fields.complete).toBe(false);
    expect(fields.get('id')).toEqual({ type: 'string', value: 't1' });
    expect(fields.get('history')).toEqual({ type: 'array' });
    expect(fields.get('after')).toBeUndefined();
  });

  it('a truncated document is partial when the transport says so, malformed otherwise', () => {
    const scanner = createJsonScanner(compileScanPlan(['a']), { maxScanBytes: Infinity });
    scanner.push(enc.encode('{"a":"x","b":['));
    expect(scanner.end({ truncated: true }).status).toBe('partial');
  });

  it('keeps constant memory on 1 MB of nesting and on a 50 MB string', () => {
    const deep = createJsonScanner(compileScanPlan(['a.b']), { maxScanBytes: Infinity });
    deep.push(enc.encode('{"a":{"x":' + '['.repeat(1_000_000) + ']'.repeat(1_000_000) + ',"b":7}}'));
    const deepResult = deep.end();
    expect(deepResult.status).toBe('complete');
    expect(deepResult.fields.get('a.b')).toEqual({ type: 'number', value: 7 });

    const long = createJsonScanner(compileScanPlan(['id', 'raw', 'after']), { maxScanBytes: Infinity });
    long.push(enc.encode('{"id":"t","raw":"'));
    const block = new Uint8Array(1 << 20).fill(0x41);
    block[100] = 0x5c; // a `\A` escape inside, and an escaped quote at a chunk end below
    block[block.length - 1] = 0x5c;
    for (let i = 0; i < 50; i++) {
      long.push(block);
      expect(long.heldBytes).toBeLessThanOrEqual(4096);
    }
    long.push(enc.encode('A","after":true}')); // the A is the escaped byte
    const result = long.end();
    expect(result.status).toBe('complete');
    expect(result.fields.get('raw')).toMatchObject({ type: 'string', truncated: true });
    expect(result.fields.get('after')).toEqual({ type: 'boolean', value: true });
  });

  it('does not throw on non-UTF-8 bytes and still finds the ids', () => {
    const body = new Uint8Array([
      ...enc.encode('{"id":"t'),
      0xff,
      0xc3,
      ...enc.encode('","kind":"task","x":"'),
      0x80,
      ...enc.encode('"}'),
    ]);
    const { status, fields } = scan(['id', 'kind'], [body]);
    expect(status).toBe('complete');
    expect(fields.get('id')).toEqual({ type: 'string', value: 't\ufffd\ufffd' });
    expect(fields.get('kind')).toEqual({ type: 'string', value: 'task' });
  });
});

describe('JSON body reader', () => {
  const plan = compileScanPlan(['id', 'result.task.id', 'result.task.history']);

  function read(body: Uint8Array, maxBytes: number, chunk = 4096, truncated = false) {
    const reader = createJsonBodyReader(plan, { maxBytes });
    let maxHeld = 0;
    for (let i = 0; i < body.length; i += chunk) {
      reader.push(body.subarray(i, i + chunk));
      maxHeld = Math.max(maxHeld, reader.heldBytes);
    }
    return { ...reader.end({ truncated }), maxHeld };
  }

  it('parses a small body whole, scans a big one, and both agree', () => {
    const task = {
      id: 't1',
      history: Array.from({ length: 40 }, (_, i) => ({ messageId: `m${i}`, parts: [{ text: 'x'.repeat(500) }] })),
    };
    const body = enc.encode(JSON.stringify({ jsonrpc: '2.0', id: 3, result: { task } }));
    expect(body.length).toBeGreaterThan(PARSE_BUFFER_BYTES);
    const scanned = read(body, 1 << 20);
    const parsed = read(body.subarray(0, body.length), 1 << 20, body.length);
    expect(scanned.via).toBe('scan');
    expect(scanned.status).toBe('complete');
    expect(scanned.fields.get('result.task.history')).toEqual({ type: 'array', count: 40 });
    const small = read(enc.encode('{"id":3,"result":{"task":{"id":"t1","history":[]}}}'), 1 << 20);
    expect(small.via).toBe('parse');
    expect(small.fields.get('result.task.id')).toEqual({ type: 'string', value: 't1' });
    expect(parsed.fields.get('id')).toEqual(scanned.fields.get('id'));
  });

  it('says empty for no body, malformed for bad JSON, partial when cut by the transport', () => {
    expect(read(new Uint8Array(0), 1024).status).toBe('empty');
    const bad = read(enc.encode('{"id":7,"result":'), 1024);
    expect(bad.status).toBe('malformed');
    expect(bad.fields.get('id')).toEqual({ type: 'number', value: 7 });
    expect(read(enc.encode('{"id":7,"result":'), 1024, 4096, true).status).toBe('partial');
  });

  it('holds at most the parse buffer on a 100 MB body and still finds the ids near its start', () => {
    const reader = createJsonBodyReader(plan, { maxBytes: 256 * 1024 });
    reader.push(enc.encode('{"id":9,"result":{"task":{"id":"big","artifacts":[{"parts":[{"raw":"'));
    const block = new Uint8Array(1 << 20).fill(0x41);
    let maxHeld = 0;
    for (let i = 0; i < 100; i++) {
      reader.push(block);
      maxHeld = Math.max(maxHeld, reader.heldBytes);
    }
    reader.push(enc.encode('"}]}],"history":[]}}}'));
    const result = reader.end();
    expect(maxHeld).toBeLessThanOrEqual(PARSE_BUFFER_BYTES);
    expect(result.status).toBe('partial');
    expect(result.bytes).toBeGreaterThan(100 * (1 << 20));
    expect(result.fields.get('id')).toEqual({ type: 'number', value: 9 });
    expect(result.fields.get('result.task.id')).toEqual({ type: 'string', value: 'big' });
    expect(result.fields.get('result.task.history')).toBeUndefined();
  });
});
