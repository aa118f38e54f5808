/**
 * A read-only view of selected fields of a JSON document, addressed by dotted paths, and the
 * bridge from the streaming scanner to the decoders.
 *
 * Two producers give the same answers: `fieldsFromValue` walks an already parsed value (small
 * bodies, `JSON.parse`), and the streaming scanner in `json-scan.ts` records the wanted paths
 * while the bytes go by (bodies too big to buffer). Tests compare the two on arbitrary documents.
 *
 * The decoders do not look fields up by path: they read the value by direct property access
 * (json-value.ts), which is several times cheaper than walking path strings (measured: path
 * lookups were the second cost of a unary exchange after JSON.parse itself). A scanned body is
 * handed to them as the skeleton `RecordedFields.toValue()` builds from the recorded paths: the
 * same reads give the same answers on both, as long as the decoders read only paths of their
 * scan plan (a test checks that on every capture).
 *
 * Path syntax: keys separated by `.`; `*` matches any array element (first match in document
 * order wins); the empty path `''` is the root value.
 */

export type JsonType = 'object' | 'array' | 'string' | 'number' | 'boolean' | 'null';

export interface FieldHit {
  readonly type: JsonType;
  /** Scalars only. Strings longer than the capture cap are cut and flagged `truncated`. */
  readonly value?: string | number | boolean | null;
  readonly truncated?: boolean;
  /** Arrays only: number of elements, known once the array closed. */
  readonly count?: number;
}

export interface JsonFields {
  /** True when the whole document was seen, so an absent path really is absent. */
  readonly complete: boolean;
  get(path: string): FieldHit | undefined;
}

/** Longest string value kept, in characters (`fieldsFromValue`) or bytes (scanner). */
export const MAX_CAPTURED_STRING = 2048;

/** The scanner's record of an object it walked or skipped. */
export class ObjectMark {}
export const OBJECT_MARK = new ObjectMark();

/** The scanner's record of an array; `count` is set when it closes. */
export class ArrayMark {
  count: number | undefined = undefined;
}

/**
 * A string longer than the capture cap (its start is kept), or cut inside an escape (`''`):
 * recorded by the scanner, and left in its skeleton so that readers see a string they cannot use.
 */
export class CutString {
  constructor(readonly value: string) {}
}

/**
 * On an array of a scanner skeleton: the scanner's record of it. The skeleton holds one element
 * (the first match of each wanted path below it), so its length is not the element count.
 */
export const SCANNED_ARRAY = Symbol('scanned array');
export type ScannedArray = unknown[] & { [SCANNED_ARRAY]?: ArrayMark };

const splitCache = new Map<string, readonly string[]>();

export function splitPath(path: string): readonly string[] {
  let segments = splitCache.get(path);
  if (segments === undefined) {
    segments = path === '' ? [] : path.split('.');
    // Paths are compile-time constants of the decoders; the cap only guards against misuse.
    if (splitCache.size < 4096) splitCache.set(path, segments);
  }
  return segments;
}

/** `prefix.path`, or `path` for the root prefix `''`. For building path lists, not per lookup. */
export function joinPath(prefix: string, path: string): string {
  return prefix === '' ? path : `${prefix}.${path}`;
}

export const EMPTY_FIELDS: JsonFields = { complete: false, get: () => undefined };

/** Fields of a value produced by `JSON.parse`. */
export function fieldsFromValue(root: unknown, complete = true): JsonFields {
  return new ValueFields(root, complete);
}

// A class, not a closure: one of these is made for every parsed body.
class ValueFields implements JsonFields {
  constructor(
    private readonly root: unknown,
    readonly complete: boolean,
  ) {}

  get(path: string): FieldHit | undefined {
    return hitOf(resolve(this.root, splitPath(path), 0));
  }
}

function resolve(node: unknown, segments: readonly string[], at: number): unknown {
  if (at === segments.length) return node;
  const segment = segments[at] as string;
  if (Array.isArray(node)) {
    if (segment !== '*') return undefined;
    for (const element of node) {
      const found = resolve(element, segments, at + 1);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  // `*` steps into arrays only: an object member named "*" is not an element (the scanner agrees).
  if (
    segment === '*' ||
    node === null ||
    typeof node !== 'object' ||
    !Object.prototype.hasOwnProperty.call(node, segment)
  )
    return undefined;
  return resolve((node as Record<string, unknown>)[segment], segments, at + 1);
}

/**
 * Fields recorded by the scanner: path text → scalar, or a mark for containers and cut strings.
 * `complete: false` hides nothing: it only says that absent paths may exist after all.
 */
export class RecordedFields implements JsonFields {
  constructor(
    private readonly hits: ReadonlyMap<string, unknown>,
    readonly complete: boolean,
  ) {}

  get(path: string): FieldHit | undefined {
    return hitOf(this.hits.get(path));
  }

  /** The same hits, with another `complete`. */
  withComplete(complete: boolean): RecordedFields {
    return new RecordedFields(this.hits, complete);
  }

  /**
   * A skeleton of the document holding exactly the recorded paths, for readers written against
   * parsed values: objects are null-prototype objects with the recorded keys, arrays hold one
   * element with the first match of each wanted path below them (and their `SCANNED_ARRAY`
   * record), cut strings stay `CutString`s. A container that was only passed through on the way
   * to a recorded path appears too, as it does in the document. `undefined` when nothing was
   * recorded. Exact for plans whose paths below a `*` are single keys (`history.*.kind`): the
   * first matches of several such keys may lie in different elements, and merge into one.
   */
  toValue(): unknown {
    let root: unknown;
    for (const [path, recorded] of this.hits) root = place(root, splitPath(path), 0, recorded);
    return root;
  }
}

function place(node: unknown, segments: readonly string[], at: number, recorded: unknown): unknown {
  if (at === segments.length) {
    if (recorded instanceof ObjectMark) return isSkeletonObject(node) ? node : Object.create(null);
    if (recorded instanceof ArrayMark) {
      const array: ScannedArray = Array.isArray(node) ? node : [];
      array[SCANNED_ARRAY] = recorded;
      return array;
    }
    return recorded;
  }
  const segment = segments[at] as string;
  if (segment === '*') {
    const array: ScannedArray = Array.isArray(node) ? node : [];
    array[0] = place(array[0], segments, at + 1, recorded);
    return array;
  }
  const object = (isSkeletonObject(node) ? node : Object.create(null)) as Record<string, unknown>;
  object[segment] = place(object[segment], segments, at + 1, recorded);
  return object;
}

function isSkeletonObject(node: unknown): node is Record<string, unknown> {
  return typeof node === 'object' && node !== null && !Array.isArray(node) && !(node instanceof CutString);
}

/** The `FieldHit` of a parsed value, or of what the scanner recorded. */
export function hitOf(value: unknown): FieldHit | undefined {
  switch (typeof value) {
    case 'string':
      return value.length > MAX_CAPTURED_STRING
        ? { type: 'string', value: value.slice(0, MAX_CAPTURED_STRING), truncated: true }
        : { type: 'string', value };
    case 'number':
      return { type: 'number', value };
    case 'boolean':
      return { type: 'boolean', value };
    case 'object':
      if (value === null) return { type: 'null', value: null };
      if (Array.isArray(value)) return { type: 'array', count: value.length };
      if (value instanceof ArrayMark)
        return value.count === undefined ? { type: 'array' } : { type: 'array', count: value.count };
      if (value instanceof CutString) return { type: 'string', value: value.value, truncated: true };
      return { type: 'object' };
    default:
      return undefined;
  }
}
