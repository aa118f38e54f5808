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

const joinCache = new Map<string, Map<string, string>>();

/**
 * `prefix.path` (or `path` for the root prefix `''`), from a cache: decoders look fields up
 * under a few prefixes on every body and event, and a cached string keeps its hash, so the
 * lookups that follow stay cheap (measured: a fresh template string per lookup tripled the
 * cost of classifying a request).
 */
export function joinPath(prefix: string, path: string): string {
  if (prefix === '') return path;
  let byPath = joinCache.get(prefix);
  if (byPath === undefined) {
    byPath = new Map();
    if (joinCache.size < 256) joinCache.set(prefix, byPath);
  }
  let joined = byPath.get(path);
  if (joined === undefined) {
    joined = `${prefix}.${path}`;
    if (byPath.size < 1024) byPath.set(path, joined);
  }
  return joined;
}

export const EMPTY_FIELDS: JsonFields = { complete: false, get: () => undefined };

/** Fields of a value produced by `JSON.parse`. */
export function fieldsFromValue(root: unknown, complete = true): JsonFields {
  return {
    complete,
    get: (path) => resolve(root, splitPath(path), 0),
  };
}

function resolve(node: unknown, segments: readonly string[], at: number): FieldHit | undefined {
  if (at === segments.length) return hitOf(node);
  const segment = segments[at] as string;
  if (Array.isArray(node)) {
    if (segment !== '*') return undefined;
    for (const element of node) {
      const hit = resolve(element, segments, at + 1);
      if (hit !== undefined) return hit;
    }
    return undefined;
  }
  if (node === null || typeof node !== 'object' || !Object.prototype.hasOwnProperty.call(node, segment)) {
    return undefined;
  }
  return resolve((node as Record<string, unknown>)[segment], segments, at + 1);
}

function hitOf(value: unknown): FieldHit | undefined {
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
      return Array.isArray(value) ? { type: 'array', count: value.length } : { type: 'object' };
    default:
      return undefined;
  }
}

// Typed accessors: `undefined` when the field is absent or of another type.

export function stringAt(fields: JsonFields, path: string): string | undefined {
  const hit = fields.get(path);
  return hit?.type === 'string' && hit.truncated !== true ? (hit.value as string) : undefined;
}

export function numberAt(fields: JsonFields, path: string): number | undefined {
  const hit = fields.get(path);
  return hit?.type === 'number' ? (hit.value as number) : undefined;
}

export function booleanAt(fields: JsonFields, path: string): boolean | undefined {
  const hit = fields.get(path);
  return hit?.type === 'boolean' ? (hit.value as boolean) : undefined;
}

export function countAt(fields: JsonFields, path: string): number | undefined {
  const hit = fields.get(path);
  return hit?.type === 'array' ? hit.count : undefined;
}

export function typeAt(fields: JsonFields, path: string): JsonType | undefined {
  return fields.get(path)?.type;
}

/** First path of `paths` that is present, for fields with several historical spellings. */
export function firstPresent(fields: JsonFields, paths: readonly string[]): string | undefined {
  for (const path of paths) if (fields.get(path) !== undefined) return path;
  return undefined;
}
