/**
 * Byte spans of selected values of one whole JSON document (pure, bounded, iterative).
 *
 * A byte-preserving edit (the extended-card rewrite, src/cards/rewrite-bytes.ts) needs to know
 * where each wanted value starts and ends in the original bytes, and for a wanted object where
 * each of its members does, so that one string can be replaced or one member cut out while every
 * other byte stays as the agent sent it: big numbers, `1e400`, duplicate keys, escapes and
 * whitespace included. Why hand-written (principle 18): no maintained JSON library reports token
 * byte offsets (`JSON.parse`, `@streamparser/json` give values, not positions), and json-scan.ts
 * keeps first matches only and skips unwanted subtrees without validating them. The cost is not
 * on the hot path: only extended-card answers, at most 1 MiB, are walked.
 *
 * Every occurrence of a wanted path is reported, in document order (duplicate keys too). The
 * whole document is validated against the JSON grammar (RFC 8259), except the UTF-8 inside
 * strings: bytes that are not touched are kept as they are, valid or not, and a wanted string
 * whose bytes are not valid UTF-8 has no `text`. Nesting lives on an explicit stack, never in
 * recursion, so a 100k-deep document is walked like a flat one; memory is that stack (one shared
 * entry per container off the wanted paths) and the hits.
 */
import type { JsonType } from './json-fields.js';
import type { PathNode, ScanPlan } from './json-scan-plan.js';

export interface MemberSpan {
  /** The decoded key. */
  readonly key: string;
  /** Offset of the key's opening quote. */
  readonly keyStart: number;
  /** Offset just past the member's value. */
  readonly valueEnd: number;
  readonly type: JsonType;
}

export interface SpanHit {
  /** The wanted path it matched, as given to the plan. */
  readonly path: string;
  readonly type: JsonType;
  /** The value is `bytes[start, end)`; a string's span includes its quotes. */
  readonly start: number;
  readonly end: number;
  /** The element index in each array the path steps through (one per `*`). */
  readonly indices: readonly number[];
  /** Strings: the decoded value; undefined when its bytes are not valid UTF-8. */
  readonly text?: string;
  /** Objects: their members in document order, duplicates included. */
  readonly members?: readonly MemberSpan[];
  /** Arrays: how many elements. */
  readonly count?: number;
}

export type SpanResult = { readonly ok: true; readonly hits: SpanHit[] } | { readonly ok: false; readonly at: number };

interface Frame {
  readonly isArray: boolean;
  /** Plan node of this container; undefined off the wanted paths. */
  readonly node: PathNode | undefined;
  /** Elements so far (arrays on a wanted path). */
  count: number;
  readonly hit: MutableHit | undefined;
  /** The member being read (objects with a hit): key and where it starts. */
  key: string;
  keyStart: number;
}

interface MutableHit {
  path: string;
  type: JsonType;
  start: number;
  end: number;
  indices: number[];
  text?: string;
  members?: MemberSpan[];
  count?: number;
}

/** Containers off the wanted paths share these: nothing in them is ever recorded. */
const SKIP_OBJECT: Frame = { isArray: false, node: undefined, count: 0, hit: undefined, key: '', keyStart: 0 };
const SKIP_ARRAY: Frame = { isArray: true, node: undefined, count: 0, hit: undefined, key: '', keyStart: 0 };

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const strict = new TextDecoder('utf-8', { fatal: true });
const lenient = new TextDecoder('utf-8');

const isSpace = (b: number | undefined) => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
const isDigit = (b: number | undefined) => b !== undefined && b >= 0x30 && b <= 0x39;
const isHex = (b: number | undefined) =>
  b !== undefined && ((b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66));

function skipSpace(bytes: Uint8Array, from: number): number {
  let i = from;
  while (isSpace(bytes[i])) i++;
  return i;
}

/** Offset just past the string opening at `at`, or -1 when it is not a valid JSON string. */
function stringEnd(bytes: Uint8Array, at: number): number {
  for (let i = at + 1; i < bytes.length; i++) {
    const b = bytes[i] as number;
    if (b === QUOTE) return i + 1;
    if (b < 0x20) return -1;
    if (b !== BACKSLASH) continue;
    const e = bytes[++i];
    if (e === 0x75) {
      if (!isHex(bytes[i + 1]) || !isHex(bytes[i + 2]) || !isHex(bytes[i + 3]) || !isHex(bytes[i + 4])) return -1;
      i += 4;
    } else if (
      e !== QUOTE &&
      e !== BACKSLASH &&
      e !== 0x2f &&
      e !== 0x62 &&
      e !== 0x66 &&
      e !== 0x6e &&
      e !== 0x72 &&
      e !== 0x74
    ) {
      return -1;
    }
  }
  return -1;
}

/** The text of a valid string token `bytes[start, end)`; undefined for invalid UTF-8 when `fatal`. */
function stringText(bytes: Uint8Array, start: number, end: number, fatal: boolean): string | undefined {
  let raw: string;
  try {
    raw = (fatal ? strict : lenient).decode(bytes.subarray(start + 1, end - 1));
  } catch {
    return undefined;
  }
  // Already validated: the escapes are JSON's, so JSON.parse resolves them exactly.
  return raw.includes('\\') ? (JSON.parse(`"${raw}"`) as string) : raw;
}

/** Offset just past the number starting at `at`, or -1 (RFC 8259 §6 grammar). */
function numberEnd(bytes: Uint8Array, at: number): number {
  let i = at;
  if (bytes[i] === 0x2d) i++;
  if (bytes[i] === 0x30) i++;
  else if (isDigit(bytes[i])) while (isDigit(bytes[i])) i++;
  else return -1;
  if (bytes[i] === 0x2e) {
    i++;
    if (!isDigit(bytes[i])) return -1;
    while (isDigit(bytes[i])) i++;
  }
  if (bytes[i] === 0x65 || bytes[i] === 0x45) {
    i++;
    if (bytes[i] === 0x2b || bytes[i] === 0x2d) i++;
    if (!isDigit(bytes[i])) return -1;
    while (isDigit(bytes[i])) i++;
  }
  return i;
}

function literalEnd(bytes: Uint8Array, at: number, word: string): number {
  for (let k = 0; k < word.length; k++) if (bytes[at + k] !== word.charCodeAt(k)) return -1;
  return at + word.length;
}

function typeOf(b: number | undefined): JsonType | undefined {
  if (b === 0x7b) return 'object';
  if (b === 0x5b) return 'array';
  if (b === QUOTE) return 'string';
  if (b === 0x2d || isDigit(b)) return 'number';
  if (b === 0x74 || b === 0x66) return 'boolean';
  if (b === 0x6e) return 'null';
  return undefined;
}

/** Walks the whole of `bytes` (a leading UTF-8 BOM is allowed) and reports the plan's paths. */
export function locateJson(bytes: Uint8Array, plan: ScanPlan): SpanResult {
  const hits: SpanHit[] = [];
  const stack: Frame[] = [];
  const fail = (at: number): SpanResult => ({ ok: false, at });
  let i = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  let target: PathNode | undefined = plan.root;

  for (;;) {
    // A value starts here.
    i = skipSpace(bytes, i);
    const start = i;
    const type = typeOf(bytes[i]);
    if (type === undefined) return fail(i);
    const parent = stack[stack.length - 1];
    if (parent?.isArray === true && parent.node !== undefined) parent.count++;
    const node: PathNode | undefined = target;
    let hit: MutableHit | undefined;
    if (node?.path !== undefined) {
      hit = { path: node.path, type, start, end: -1, indices: stack.filter((f) => f.isArray).map((f) => f.count - 1) };
      hits.push(hit);
    }
    let end: number;
    if (type === 'object' || type === 'array') {
      const isArray = type === 'array';
      if (hit !== undefined) {
        if (isArray) hit.count = 0;
        else hit.members = [];
      }
      const frame: Frame =
        node === undefined
          ? isArray
            ? SKIP_ARRAY
            : SKIP_OBJECT
          : { isArray, node, count: 0, hit, key: '', keyStart: 0 };
      stack.push(frame);
      i = skipSpace(bytes, i + 1);
      if (bytes[i] !== (isArray ? 0x5d : 0x7d)) {
        if (isArray) {
          target = node?.wildcard;
          continue;
        }
        i = readKey(bytes, i, frame);
        if (i < 0) return fail(-i - 1);
        target = node?.children?.get(frame.key);
        continue;
      }
      stack.pop();
      end = i + 1;
    } else {
      end =
        type === 'string'
          ? stringEnd(bytes, i)
          : type === 'number'
            ? numberEnd(bytes, i)
            : literalEnd(bytes, i, type === 'null' ? 'null' : bytes[i] === 0x74 ? 'true' : 'false');
      if (end < 0) return fail(i);
      if (hit !== undefined && type === 'string') {
        const text = stringText(bytes, start, end, true);
        if (text !== undefined) hit.text = text;
      }
    }
    if (hit !== undefined) hit.end = end;
    let valueType = type;

    // After a value: the next one in its container, or the container's end (and so on upwards).
    for (;;) {
      const top = stack[stack.length - 1];
      if (top === undefined) return skipSpace(bytes, end) === bytes.length ? { ok: true, hits } : fail(end);
      if (!top.isArray && top.hit?.members !== undefined) {
        top.hit.members.push({ key: top.key, keyStart: top.keyStart, valueEnd: end, type: valueType });
      }
      i = skipSpace(bytes, end);
      const b = bytes[i];
      if (b === 0x2c) {
        i++;
        if (top.isArray) {
          target = top.node?.wildcard;
        } else {
          i = readKey(bytes, i, top);
          if (i < 0) return fail(-i - 1);
          target = top.node?.children?.get(top.key);
        }
        break;
      }
      if (b !== (top.isArray ? 0x5d : 0x7d)) return fail(i);
      stack.pop();
      end = i + 1;
      valueType = top.isArray ? 'array' : 'object';
      if (top.hit !== undefined) {
        top.hit.end = end;
        if (top.isArray) top.hit.count = top.count;
      }
    }
  }
}

/**
 * Reads `"key" :` from `at` (spaces first); returns the offset after the colon, or `-(where) - 1`
 * on a syntax error. Decodes the key only where it matters: on a wanted path.
 */
function readKey(bytes: Uint8Array, at: number, frame: Frame): number {
  const i = skipSpace(bytes, at);
  if (bytes[i] !== QUOTE) return -i - 1;
  const end = stringEnd(bytes, i);
  if (end < 0) return -i - 1;
  if (frame.node !== undefined) {
    frame.key = stringText(bytes, i, end, false) as string;
    frame.keyStart = i;
  }
  const colon = skipSpace(bytes, end);
  if (bytes[colon] !== 0x3a) return -colon - 1;
  return colon + 1;
}
