/**
 * `JSON.parse` restricted to a scan plan's paths: one pass over a JSON text that validates all of
 * it but materialises only the values the plan wants (json-scan-plan.ts). What readers get is the
 * value `JSON.parse` would return with everything off the plan left out: a wanted object with no
 * wanted keys below it is an empty object, a wanted array keeps its length (elements off the plan
 * are `0`), strings are sliced only where wanted. Readers that read only plan paths
 * (json-value.ts rules; test/a2a/plan-coverage.test.ts) therefore see the same facts.
 *
 * Accepts a subset of JSON: whatever it does not accept — invalid JSON, nesting deeper than
 * `MAX_DEPTH` — returns `UNSCANNED` and the caller parses the text with `JSON.parse`, which
 * decides validity and findings exactly as before. So an accepted text must be valid JSON (tested
 * with fast-check against `JSON.parse`), and a rejected valid one only costs the parse.
 *
 * Why (principle 18), measured with test/a2a/sse-event-bench.ts on the benchmark's ~510 B SSE
 * events: `JSON.parse` of an event's data was ~73 % of inspecting it (1.4 of 1.9 µs), most of
 * it building objects and strings the stream decoder never reads (metadata, message parts,
 * artifacts). This pass builds ~5 small objects per event instead of ~10 and copies no string
 * but the ids and the state. The numbers are in the header of test/a2a/sse-event-bench.ts.
 */
import type { PathNode } from './json-scan-plan.js';

/**
 * A scan plan node compiled for this pass: its keys by length, so a key in the text is matched
 * in place (`startsWith`) with no string made for it, and stored under the plan's own key string.
 */
export interface PruneNode {
  /** `byLength[n]`: the wanted keys of n characters and their nodes; `undefined`: no wanted keys. */
  readonly byLength: ReadonlyArray<ReadonlyArray<readonly [key: string, node: PruneNode]> | undefined> | undefined;
  /** The plan's keys, for keys written with escapes. */
  readonly children: ReadonlyMap<string, PruneNode> | undefined;
  readonly wildcard: PruneNode | undefined;
}

export function compilePrunePlan(node: PathNode): PruneNode {
  const children = node.children === undefined ? undefined : new Map<string, PruneNode>();
  const byLength: Array<Array<readonly [string, PruneNode]> | undefined> = [];
  for (const [key, child] of node.children ?? []) {
    const compiled = compilePrunePlan(child);
    children?.set(key, compiled);
    (byLength[key.length] ??= []).push([key, compiled]);
  }
  return {
    byLength: children === undefined ? undefined : byLength,
    children,
    wildcard: node.wildcard === undefined ? undefined : compilePrunePlan(node.wildcard),
  };
}

/** Returned for a text this pass leaves to `JSON.parse` (not JSON, or too deep). */
export const UNSCANNED: unique symbol = Symbol('unscanned');
/** A JSON value, or `UNSCANNED`. */
type Result = unknown;

const MAX_DEPTH = 64;
const EMPTY: Readonly<Record<string, never>> = Object.freeze({});

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const LBRACE = 0x7b;
const RBRACE = 0x7d;
const LBRACKET = 0x5b;
const RBRACKET = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;
const MINUS = 0x2d;

// The text and position of the one pass in progress (synchronous, so one set suffices and no
// object is made per call).
let s = '';
let at = 0;
let depth = 0;
let escaped = false;
/** Whether the text has no control character at all (so no string in it holds one): 0 not known yet, 1 none, 2 some. */
let controlFree = 0;
/** Position of the next backslash at or after the string being read (`s.length`: none). */
let backslash = 0;
// eslint-disable-next-line no-control-regex -- JSON strings may hold none of these (RFC 8259 §7)
const CONTROL = /[\u0000-\u001f]/;

/** The pruned value of `text` under `root`, or `UNSCANNED`. Never throws. */
export function pruneJson(text: string, root: PruneNode): Result {
  s = text;
  at = 0;
  depth = 0;
  controlFree = 0;
  backslash = -1;
  let out: Result = UNSCANNED;
  space();
  const value = wanted(root);
  space();
  if (value !== UNSCANNED && at === s.length) out = value;
  s = '';
  return out;
}

/** A value at a wanted path. */
function wanted(node: PruneNode): Result {
  const c = s.charCodeAt(at);
  if (c === QUOTE) return string();
  if (c === LBRACE) {
    if (node.byLength === undefined) return skip() ? EMPTY : UNSCANNED;
    return object(node);
  }
  if (c === LBRACKET) return array(node.wildcard);
  return scalar(c);
}

function object(node: PruneNode): Result {
  if (++depth > MAX_DEPTH) return UNSCANNED;
  at++;
  space();
  const out: Record<string, unknown> = {};
  if (s.charCodeAt(at) === RBRACE) return close(out);
  for (;;) {
    if (s.charCodeAt(at) !== QUOTE) return UNSCANNED;
    const start = at;
    if (!skipString()) return UNSCANNED;
    const found = escaped ? byValue(node, start) : byLength(node, start);
    if (!colon()) return UNSCANNED;
    if (found === undefined) {
      if (!skip()) return UNSCANNED;
    } else {
      const value = wanted(found[1]);
      if (value === UNSCANNED) return UNSCANNED;
      out[found[0]] = value; // last one wins, as in JSON.parse
    }
    const next = separator(RBRACE);
    if (next === 0) return UNSCANNED;
    if (next === RBRACE) return close(out);
  }
}

/** The wanted key whose text is the string from `start` to `at` (no escapes in it). */
function byLength(node: PruneNode, start: number): readonly [string, PruneNode] | undefined {
  const candidates = node.byLength?.[at - start - 2];
  if (candidates === undefined) return undefined;
  // Most keys are told apart by their first character: compare that before the whole key.
  const first = s.charCodeAt(start + 1);
  for (let i = 0; i < candidates.length; i++) {
    const candidate = candidates[i] as readonly [string, PruneNode];
    if (candidate[0].charCodeAt(0) === first && s.startsWith(candidate[0], start + 1)) return candidate;
  }
  return undefined;
}

/** Likewise for a key written with escapes (`"t\u0061sk"`), decoded first. */
function byValue(node: PruneNode, start: number): readonly [string, PruneNode] | undefined {
  const key = JSON.parse(s.slice(start, at)) as string;
  const found = node.children?.get(key);
  return found === undefined ? undefined : [key, found];
}

/** An array at a wanted path: every element, materialised only under a `*` of the plan. */
function array(element: PruneNode | undefined): Result {
  if (++depth > MAX_DEPTH) return UNSCANNED;
  at++;
  space();
  const out: unknown[] = [];
  if (s.charCodeAt(at) === RBRACKET) return close(out);
  for (;;) {
    if (element === undefined) {
      if (!skip()) return UNSCANNED;
      out.push(0);
    } else {
      const value = wanted(element);
      if (value === UNSCANNED) return UNSCANNED;
      out.push(value);
    }
    const next = separator(RBRACKET);
    if (next === 0) return UNSCANNED;
    if (next === RBRACKET) return close(out);
  }
}

function close(value: unknown): unknown {
  at++;
  depth--;
  return value;
}

/** After a member or element: `,` (then the next one) or the closing bracket; 0 for anything else. */
function separator(closing: number): number {
  space();
  const c = s.charCodeAt(at);
  if (c === COMMA) {
    at++;
    space();
    return COMMA;
  }
  return c === closing ? closing : 0;
}

function colon(): boolean {
  space();
  if (s.charCodeAt(at) !== COLON) return false;
  at++;
  space();
  return true;
}

function string(): Result {
  const start = at;
  if (!skipString()) return UNSCANNED;
  // Only a string with escapes needs decoding; it is valid, so JSON.parse cannot throw.
  return escaped ? (JSON.parse(s.slice(start, at)) as string) : s.slice(start + 1, at - 1);
}

function scalar(c: number): Result {
  const start = at;
  if (c === MINUS || (c >= 0x30 && c <= 0x39)) return skipNumber() ? Number(s.slice(start, at)) : UNSCANNED;
  if (s.startsWith('true', at)) return literal(4, true);
  if (s.startsWith('false', at)) return literal(5, false);
  if (s.startsWith('null', at)) return literal(4, null);
  return UNSCANNED;
}

function literal(length: number, value: boolean | null): boolean | null {
  at += length;
  return value;
}

// Skipping: the same grammar, nothing kept. One loop with the open containers on a stack, the
// position in a local: the values off the plan are most of an event.

/** Kinds of the containers open in `skip`: 1 object, 0 array. */
const open = new Uint8Array(MAX_DEPTH);

function skip(): boolean {
  const t = s;
  let j = at;
  let level = 0;
  for (;;) {
    // A value starts at j.
    const c = t.charCodeAt(j);
    if (c === LBRACE || c === LBRACKET) {
      if (depth + level >= MAX_DEPTH) return false;
      j = spaceFrom(j + 1);
      if (t.charCodeAt(j) === c + 2)
        j++; // `{}` or `[]`
      else {
        open[level++] = c === LBRACE ? 1 : 0;
        if (c === LBRACE && (j = keyFrom(j)) < 0) return false;
        continue;
      }
    } else if (c === QUOTE) {
      at = j;
      if (!skipString()) return false;
      j = at;
    } else {
      at = j;
      if (scalar(c) === UNSCANNED) return false;
      j = at;
    }
    // After a value: close containers, or go on to the next member or element.
    for (;;) {
      if (level === 0) {
        at = j;
        return true;
      }
      j = spaceFrom(j);
      const next = t.charCodeAt(j);
      const inObject = open[level - 1] === 1;
      if (next === COMMA) {
        j = spaceFrom(j + 1);
        if (inObject && (j = keyFrom(j)) < 0) return false;
        break;
      }
      if (next !== (inObject ? RBRACE : RBRACKET)) return false;
      j++;
      level--;
    }
  }
}

/** A member's `"key" :` from `j`; where its value starts, or -1. */
function keyFrom(j: number): number {
  if (s.charCodeAt(j) !== QUOTE) return -1;
  at = j;
  if (!skipString()) return -1;
  return colon() ? at : -1;
}

function spaceFrom(j: number): number {
  at = j;
  space();
  return at;
}

/**
 * From the opening quote to just after the closing one; sets `escaped`. In a text with no
 * control character, and with no backslash before it, the closing quote is the next quote:
 * found natively.
 */
function skipString(): boolean {
  escaped = false;
  if (controlFree === 0) controlFree = CONTROL.test(s) ? 2 : 1;
  if (controlFree === 1) {
    const end = s.indexOf('"', at + 1);
    if (end < 0) return false;
    if (backslash <= at) backslash = nextBackslash(at + 1);
    if (backslash > end) {
      at = end + 1;
      return true;
    }
  }
  return scanString();
}

function nextBackslash(from: number): number {
  const found = s.indexOf('\\', from);
  return found < 0 ? s.length : found;
}

/** `skipString` a character at a time: escapes, control characters. */
function scanString(): boolean {
  let j = at + 1;
  for (;;) {
    const c = s.charCodeAt(j);
    if (c === QUOTE) break;
    if (c === BACKSLASH) {
      const length = escapeLength(j);
      if (length === 0) return false;
      escaped = true;
      j += length;
    } else if (c >= 0x20) j++;
    else return false; // a control character, or the end of the text (NaN)
  }
  at = j + 1;
  return true;
}

/** Length of the escape sequence at `j` (`\n`, `\u00e9`), 0 when it is none. */
function escapeLength(j: number): number {
  switch (s.charCodeAt(j + 1)) {
    case 0x22: // "
    case 0x5c: // \
    case 0x2f: // /
    case 0x62: // b
    case 0x66: // f
    case 0x6e: // n
    case 0x72: // r
    case 0x74: // t
      return 2;
    case 0x75: // u
      return isHex(j + 2) && isHex(j + 3) && isHex(j + 4) && isHex(j + 5) ? 6 : 0;
    default:
      return 0;
  }
}

function isHex(j: number): boolean {
  const c = s.charCodeAt(j) | 0x20; // lower case; NaN | 0x20 is 0x20
  return (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66);
}

/** RFC 8259 §6: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?` */
function skipNumber(): boolean {
  let j = at;
  if (s.charCodeAt(j) === MINUS) j++;
  const first = s.charCodeAt(j);
  if (first === 0x30) j++;
  else if (first >= 0x31 && first <= 0x39) j = digits(j + 1);
  else return false;
  if (s.charCodeAt(j) === 0x2e) {
    if (!isDigit(s.charCodeAt(j + 1))) return false;
    j = digits(j + 1);
  }
  const e = s.charCodeAt(j);
  if (e === 0x65 || e === 0x45) {
    j++;
    const sign = s.charCodeAt(j);
    if (sign === 0x2b || sign === MINUS) j++;
    if (!isDigit(s.charCodeAt(j))) return false;
    j = digits(j);
  }
  at = j;
  return true;
}

function digits(from: number): number {
  let j = from;
  while (isDigit(s.charCodeAt(j))) j++;
  return j;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/** JSON whitespace only (RFC 8259 §2): not the BOM, not the other Unicode spaces. */
function space(): void {
  for (;;) {
    const c = s.charCodeAt(at);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return;
    at++;
  }
}
