/**
 * The decoders read parsed bodies by direct property access (src/codec/json-value.ts); a body
 * too big to parse is scanned, and they read the skeleton of the paths its scan plan recorded.
 * Both give the same facts only if (1) every path the decoders read is in the plan, and (2) no key
 * they read is a property of a prototype that `?.` would find on a non-object value. Checked
 * here: (1) by recording every read on every capture, (2) on the plans' keys.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createRequestDecoder } from '../../src/a2a/request.js';
import { createResponseDecoder } from '../../src/a2a/response.js';
import { REQUEST_PLAN } from '../../src/a2a/request-body.js';
import { UNARY_PLAN } from '../../src/a2a/unary.js';
import { CutString } from '../../src/codec/json-fields.js';
import type { ScanPlan } from '../../src/codec/json-scan.js';
import { listCaptures, loadCapture } from './captures.js';

const names = listCaptures().filter((name) => !name.includes('--push-'));

/** Paths read, per plan they must belong to. */
const reads = new Map<ScanPlan, Set<string>>();
let current: ScanPlan | undefined;

function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

/** `value`, with every property read below it recorded as a path (array elements as `*`). */
function recording(value: unknown, path: string, into: Set<string>): unknown {
  if (typeof value !== 'object' || value === null) return value;
  return new Proxy(value, {
    get(target, key, receiver) {
      const found: unknown = Reflect.get(target, key, receiver);
      if (typeof key === 'symbol') return found;
      if (Array.isArray(target)) {
        // `length` and methods are the array's own business; elements are `*`.
        return /^\d+$/.test(key) ? recording(found, join(path, '*'), into) : found;
      }
      into.add(join(path, key));
      return recording(found, join(path, key), into);
    },
  });
}

function decodeRecording(name: string): void {
  const c = loadCapture(name);
  const req = createRequestDecoder(c.request, { maxBytes: 256 * 1024, restBasePaths: ['/a2a/rest'] });
  req.push(c.request.body);
  current = REQUEST_PLAN;
  const facts = req.end();
  if (c.response === undefined) return;
  const res = createResponseDecoder(
    facts,
    { status: c.response.status, contentType: c.response.headers['content-type'] },
    { maxBytes: 256 * 1024 },
  );
  // Stream events are always parsed whole, never scanned; their readers are the unary ones.
  current = UNARY_PLAN;
  res.push(c.response.body);
  res.end({ aborted: c.response.aborted });
}

afterEach(() => {
  vi.restoreAllMocks();
  current = undefined;
});

describe('decoders read only paths of their scan plan', () => {
  it('on every capture (request and response bodies, stream events)', () => {
    const parse = JSON.parse;
    vi.spyOn(JSON, 'parse').mockImplementation((text: string, reviver?: Parameters<typeof JSON.parse>[1]) => {
      const value: unknown = parse(text, reviver);
      if (current === undefined) return value;
      let into = reads.get(current);
      if (into === undefined) reads.set(current, (into = new Set()));
      return recording(value, '', into);
    });
    for (const name of names) decodeRecording(name);
    vi.restoreAllMocks();

    for (const [plan, paths] of reads) {
      const outside = [...paths].filter((path) => !plan.paths.has(path));
      expect(outside, plan === REQUEST_PLAN ? 'REQUEST_PLAN' : 'UNARY_PLAN').toEqual([]);
    }
    // The recording did see the reads (guards against the spy missing the parser).
    expect(reads.get(REQUEST_PLAN)?.has('params.message.messageId')).toBe(true);
    expect(reads.get(UNARY_PLAN)?.has('result.task.status.state')).toBe(true);
  });

  it('no key of the plans is found by `?.` on a string, number, boolean, array or cut string', () => {
    const prototypes: Array<[string, object]> = [
      ['Object.prototype', Object.prototype],
      ['Array.prototype', Array.prototype],
      ['String.prototype', String.prototype],
      ['Number.prototype', Number.prototype],
      ['Boolean.prototype', Boolean.prototype],
      ['CutString', new CutString('')],
    ];
    for (const plan of [REQUEST_PLAN, UNARY_PLAN]) {
      const keys = new Set(
        [...plan.paths].flatMap((path) => (path === '' ? [] : path.split('.'))).filter((key) => key !== '*'),
      );
      for (const key of keys) {
        for (const [name, proto] of prototypes) expect(key in proto, `${key} in ${name}`).toBe(false);
      }
    }
  });
});
