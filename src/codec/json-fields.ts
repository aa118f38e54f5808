/**
 * A read-only view of selected fields of a JSON document, addressed by dotted paths.
 *
 * Two producers give the same answers: `fieldsFromValue` walks an already parsed value (small
 * bodies, `JSON.parse`), and the streaming scanner in `json-scan.ts` records the same paths while
 * the bytes go by (bodies too big to buffer). Decoders read facts only through this interface,
 * so both paths agree by construction (tests compare them on every capture).
 *
 * Path syntax: keys separated by `.`; `*` matches any array element (first match in document
 * order wins); the empty path `''` is the root value.
 *
 * Hot path. Decoders compile their paths once (`fieldPath`, module constants) and read them with
 * the typed accessors below, which look at `raw(path)`: on a parsed value that is a few property
 * reads, no string built, nothing allocated. The first version flattened every lookup into a
 * `FieldHit` object and split/joined path strings per lookup; on the captures (decoder-bench)
 * that cost more than the `JSON.parse` itself (CPU profile: `resolve`, `splitPath`, `joinPath`,
 * `describe` and the hits' garbage). `get` (a `FieldHit` by path text) stays for tests and rare
 * callers.
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

/** A path compiled once; decoders keep them as module constants. */
export class FieldPath {
  readonly segments: readonly string[];
  /** A segment is also a property of `Object.prototype`: such keys are read as own properties only. */
  readonly guarded: boolean;

  constructor(readonly key: string) {
    this.segments = key === '' ? [] : key.split('.');
    this.guarded = this.segments.some((s) => s in Object.prototype);
  }
}

export interface JsonFields {
  /** True when the whole document was seen, so an absent path really is absent. */
  readonly complete: boolean;
  /**
   * What sits at `path`, `undefined` when absent. On a parsed value, the value itself (objects
   * and arrays included); from the scanner, the scalar, or a mark for what it does not hold
   * (`ObjectMark`, `ArrayMark`, `CutString`). Read it with the typed accessors below.
   */
  raw(path: FieldPath): unknown;
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

/** The scanner's record of a string longer than the capture cap (its start), or cut inside an escape (''). */
export class CutString {
  constructor(readonly value: string) {}
}

const pathCache = new Map<string, FieldPath>();

/** The compiled form of a path; cached, so compile-time constants cost one lookup at most. */
export function fieldPath(path: string): FieldPath {
  let compiled = pathCache.get(path);
  if (compiled === undefined) {
    compiled = new FieldPath(path);
    // Paths are compile-time constants of the decoders; the cap only guards against misuse.
    if (pathCache.size < 4096) pathCache.set(path, compiled);
  }
  return compiled;
}

export function splitPath(path: string): readonly string[] {
  return fieldPath(path).segments;
}

/** `prefix.path`, or `path` for the root prefix `''`. For building path tables, not per lookup. */
export function joinPath(prefix: string, path: string): string {
  return prefix === '' ? path : path === '' ? prefix : `${prefix}.${path}`;
}

class EmptyFields implements JsonFields {
  readonly complete = false;
  raw(): unknown {
    return undefined;
  }
  get(): FieldHit | undefined {
    return undefined;
  }
}

export const EMPTY_FIELDS: JsonFields = new EmptyFields();

class ValueFields implements JsonFields {
  constructor(
    private readonly root: unknown,
    readonly complete: boolean,
  ) {}

  raw(path: FieldPath): unknown {
    return path.guarded ? walkGuarded(this.root, path.segments, 0) : walk(this.root, path.segments, 0);
  }

  get(path: string): FieldHit | undefined {
    return hitOf(this.raw(fieldPath(path)));
  }
}

/** Fields of a value produced by `JSON.parse`. */
export function fieldsFromValue(root: unknown, complete = true): JsonFields {
  return new ValueFields(root, complete);
}

/**
 * Fields recorded by the scanner: path text → scalar or mark. `complete: false` hides nothing:
 * it only says that absent paths may exist after all.
 */
export class RecordedFields implements JsonFields {
  constructor(
    private readonly hits: ReadonlyMap<string, unknown>,
    readonly complete: boolean,
  ) {}

  raw(path: FieldPath): unknown {
    return this.hits.get(path.key);
  }

  get(path: string): FieldHit | undefined {
    return hitOf(this.hits.get(path));
  }

  /** The same hits, with another `complete`. */
  withComplete(complete: boolean): RecordedFields {
    return new RecordedFields(this.hits, complete);
  }
}

/**
 * JSON.parse gives plain objects whose prototype is `Object.prototype`; none of the decoders'
 * keys is a property of it (else the path is `guarded`), so a plain read tells an own property
 * (JSON never yields `undefined`) from an absent one.
 */
function walk(start: unknown, segments: readonly string[], from: number): unknown {
  let node = start;
  for (let at = from; at < segments.length; at++) {
    if (typeof node !== 'object' || node === null) return undefined;
    const segment = segments[at] as string;
    if (Array.isArray(node)) {
      if (segment !== '*') return undefined;
      for (let i = 0; i < node.length; i++) {
        const found = walk(node[i], segments, at + 1);
        if (found !== undefined) return found;
      }
      return undefined;
    }
    node = (node as Record<string, unknown>)[segment];
  }
  return node;
}

function walkGuarded(start: unknown, segments: readonly string[], from: number): unknown {
  let node = start;
  for (let at = from; at < segments.length; at++) {
    if (typeof node !== 'object' || node === null) return undefined;
    const segment = segments[at] as string;
    if (Array.isArray(node)) {
      if (segment !== '*') return undefined;
      for (let i = 0; i < node.length; i++) {
        const found = walkGuarded(node[i], segments, at + 1);
        if (found !== undefined) return found;
      }
      return undefined;
    }
    if (!Object.prototype.hasOwnProperty.call(node, segment)) return undefined;
    node = (node as Record<string, unknown>)[segment];
  }
  return node;
}

/** The `FieldHit` of a raw value (see `JsonFields.raw`). */
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
      if (value instanceof ArrayMark) return value.count === undefined ? { type: 'array' } : { type: 'array', count: value.count };
      if (value instanceof CutString) return { type: 'string', value: value.value, truncated: true };
      return { type: 'object' };
    default:
      return undefined;
  }
}

/** JSON type of a raw value. */
export function typeOfRaw(value: unknown): JsonType | undefined {
  switch (typeof value) {
    case 'string':
      return 'string';
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'object':
      if (value === null) return 'null';
      if (Array.isArray(value) || value instanceof ArrayMark) return 'array';
      if (value instanceof CutString) return 'string';
      return 'object';
    default:
      return undefined;
  }
}

/** A scalar's value as `FieldHit.value` gives it (long strings cut); `undefined` for containers. */
export function scalarOfRaw(value: unknown): string | number | boolean | null | undefined {
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

// Typed accessors: `undefined` when the field is absent or of another type.

export function stringAt(fields: JsonFields, path: FieldPath): string | undefined {
  const value = fields.raw(path);
  return typeof value === 'string' && value.length <= MAX_CAPTURED_STRING ? value : undefined;
}

export function numberAt(fields: JsonFields, path: FieldPath): number | undefined {
  const value = fields.raw(path);
  return typeof value === 'number' ? value : undefined;
}

export function booleanAt(fields: JsonFields, path: FieldPath): boolean | undefined {
  const value = fields.raw(path);
  return typeof value === 'boolean' ? value : undefined;
}

export function countAt(fields: JsonFields, path: FieldPath): number | undefined {
  const value = fields.raw(path);
  if (Array.isArray(value)) return value.length;
  return value instanceof ArrayMark ? value.count : undefined;
}

export function typeAt(fields: JsonFields, path: FieldPath): JsonType | undefined {
  return typeOfRaw(fields.raw(path));
}

/** The field is a JSON object (not an array, not null). */
export function isObjectAt(fields: JsonFields, path: FieldPath): boolean {
  const value = fields.raw(path);
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof ArrayMark) && !(value instanceof CutString);
}

export function has(fields: JsonFields, path: FieldPath): boolean {
  return fields.raw(path) !== undefined;
}

/** First path of `paths` that is present, for fields with several historical spellings. */
export function firstPresent<P extends FieldPath>(fields: JsonFields, paths: readonly P[]): P | undefined {
  for (const path of paths) if (fields.raw(path) !== undefined) return path;
  return undefined;
}

/** Every `FieldPath` in a table of constants (nested objects and arrays), for building scan plans. */
export function pathsIn(table: unknown, out: string[] = []): string[] {
  if (table instanceof FieldPath) out.push(table.key);
  else if (Array.isArray(table)) for (const item of table) pathsIn(item, out);
  else if (typeof table === 'object' && table !== null) for (const value of Object.values(table)) pathsIn(value, out);
  return out;
}
