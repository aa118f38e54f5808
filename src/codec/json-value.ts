/**
 * Reading facts out of a JSON value by direct property access: `str(doc?.result?.task?.id)`.
 *
 * The value is what `JSON.parse` returned, or for a body too big to parse the skeleton the
 * scanner's recorded paths make (`RecordedFields.toValue`, json-fields.ts); the same reads give
 * the same answers on both. Each read is a named property load V8 caches at its site: on the
 * captures, reading the facts of a unary exchange this way costs a fraction of looking the same
 * fields up by path (`fields.get('result.task.status.state')`, which needs megamorphic keyed
 * loads and a result object per lookup).
 *
 * Rules for readers:
 *  - every step uses `?.`, and every leaf goes through a typed reader below: the value may be
 *    anything JSON allows where the wire says an object;
 *  - `?.` on a string, number, boolean or array gives `undefined` for any key that is no
 *    property of their prototypes (nor of `Object.prototype`); a test checks that for every key
 *    of the scan plans;
 *  - read only paths of the decoder's scan plan (a test records every read on the captures), and
 *    for `*` use `firstOf`, which is "first match in document order" like the scanner.
 */
import { CutString, MAX_CAPTURED_STRING, SCANNED_ARRAY, type JsonType, type ScannedArray } from './json-fields.js';

/**
 * A JSON value as readers see it. The type says "object with any keys" so that `?.` chains
 * type-check; at run time it is any JSON value, hence the typed readers.
 */
export type Json = { readonly [key: string]: Json } | undefined;

/** A string that was kept whole (not over the capture cap). */
export function str(value: unknown): string | undefined {
  return typeof value === 'string' && value.length <= MAX_CAPTURED_STRING ? value : undefined;
}

export function num(value: unknown): number | undefined {
  return typeof value === 'number' ? value : undefined;
}

export function bool(value: unknown): boolean | undefined {
  return typeof value === 'boolean' ? value : undefined;
}

/** A JSON object: not null, not an array, not a cut string. */
export function isObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof CutString);
}

/** A JSON string, even one too long to keep. */
export function isString(value: unknown): boolean {
  return typeof value === 'string' || value instanceof CutString;
}

/** Number of elements of an array; `undefined` for anything else, or an array cut by the cap. */
export function countOf(value: unknown): number | undefined {
  if (!Array.isArray(value)) return undefined;
  const scanned = (value as ScannedArray)[SCANNED_ARRAY];
  return scanned === undefined ? value.length : scanned.count;
}

export function typeOfValue(value: unknown): JsonType | undefined {
  switch (typeof value) {
    case 'string':
      return 'string';
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'object':
      if (value === null) return 'null';
      if (Array.isArray(value)) return 'array';
      return value instanceof CutString ? 'string' : 'object';
    default:
      return undefined;
  }
}

/** A scalar as `FieldHit.value` gives it (long strings cut to the cap); `undefined` for containers. */
export function scalarOf(value: unknown): string | number | boolean | null | undefined {
  switch (typeof value) {
    case 'string':
      return value.length > MAX_CAPTURED_STRING ? value.slice(0, MAX_CAPTURED_STRING) : value;
    case 'number':
    case 'boolean':
      return value;
    case 'object':
      if (value === null) return null;
      return value instanceof CutString ? value.value : undefined;
    default:
      return undefined;
  }
}

/**
 * `*` in a path: the first element of an array for which `pick` finds something (whatever its
 * type, as a path lookup would), `undefined` when none does or `value` is no array.
 */
export function firstOf(value: unknown, pick: (element: Json) => unknown): unknown {
  if (!Array.isArray(value)) return undefined;
  for (let i = 0; i < value.length; i++) {
    const found = pick(value[i] as Json);
    if (found !== undefined) return found;
  }
  return undefined;
}
