/**
 * Bounded, incremental, path-selective JSON scanner over UTF-8 bytes.
 *
 * Why hand-written rather than `@streamparser/json` (measured, see test/codec/json-bench.ts):
 * its tokenizer accumulates every string token whole before emitting it, so one 100 MB base64
 * `raw` part would be held in memory — the hard memory cap (principle 6) cannot be kept.
 * It also walks every byte through a generic state switch. This scanner only keeps state for
 * containers that can hold a wanted path, skips everything else by nesting depth, and jumps over
 * string contents with `indexOf('"')`, so memory is O(depth of the wanted paths) and skipped
 * bytes cost little. Keys and wanted strings that lie whole in one chunk are read where they
 * are: keys compared as bytes against the plan's (json-scan-plan.ts), strings decoded once;
 * only those cut by a chunk boundary or holding an escape go through `TokenCapture`.
 *
 * Validation is full along wanted paths and depth-only inside skipped subtrees (a `[}` deep in a
 * skipped value is not noticed). Small bodies go through `JSON.parse` instead (json-body.ts),
 * which validates everything.
 */
import { indexOfByte } from './byte-search.js';
import {
  ArrayMark,
  CutString,
  MAX_CAPTURED_STRING,
  OBJECT_MARK,
  RecordedFields,
  type JsonType,
} from './json-fields.js';
import { hasDescendants, type PathNode, type ScanPlan } from './json-scan-plan.js';
import { TokenCapture } from './token-capture.js';

export { compileScanPlan, withContainers, type ScanPlan } from './json-scan-plan.js';

export type ScanStatus = 'scanning' | 'complete' | 'partial' | 'malformed';

const enum Lex {
  Value, // expecting a value
  ValueOrEnd, // just after `[`
  KeyOrEnd, // just after `{`
  Key, // after `,` in an object
  Colon,
  CommaOrEnd,
  String,
  Number,
  Literal,
  Skip, // inside a skipped container, tracking depth only
  SkipString, // inside a string within a skipped container
  Done,
}

const enum StringRole {
  Key,
  Captured,
  Ignored,
}

interface Frame {
  readonly isArray: boolean;
  readonly node: PathNode;
  elements: number;
  /** Hit to complete with the element count when this array closes. */
  readonly countInto: ArrayMark | undefined;
}

const QUOTE = 0x22;
const BOM = [0xef, 0xbb, 0xbf];
const BACKSLASH = 0x5c;
const MAX_KEY_BYTES = 256;
const MAX_NUMBER_BYTES = 64;
const utf8 = new TextDecoder();
const JSON_NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

export interface JsonScanner {
  push(chunk: Uint8Array): void;
  /** `truncated`: the transport cut the body; an unfinished document is `partial`, not malformed. */
  end(opts?: { truncated?: boolean }): { status: Exclude<ScanStatus, 'scanning'>; fields: RecordedFields };
  readonly status: ScanStatus;
  readonly bytesScanned: number;
  /** Bytes this scanner holds right now (capture buffers); for memory-bound tests. */
  readonly heldBytes: number;
}

export function createJsonScanner(plan: ScanPlan, opts: { maxScanBytes: number }): JsonScanner {
  return new Scanner(plan, opts.maxScanBytes);
}

class Scanner implements JsonScanner {
  status: ScanStatus = 'scanning';
  bytesScanned = 0;
  private lex: Lex = Lex.Value;
  private readonly frames: Frame[] = [];
  /** Path → scalar, or a mark for containers and cut strings (see `JsonFields.raw`). */
  private readonly hits = new Map<string, unknown>();
  /** Node the next value is matched against (undefined = not wanted). */
  private target: PathNode | undefined;
  private skipDepth = 0;
  private stringRole = StringRole.Ignored;
  private escapeNext = false;
  private readonly capture = new TokenCapture();
  /** Where the scalar being captured is stored. */
  private capturePath: string | undefined;
  /** The wanted number being read, as text (at most MAX_NUMBER_BYTES characters). */
  private numberText = '';
  private literal = '';
  private literalAt = 0;
  private bomAt = 0;

  constructor(
    plan: ScanPlan,
    private readonly maxScanBytes: number,
  ) {
    this.target = plan.root;
  }

  get heldBytes(): number {
    return this.capture.heldBytes;
  }

  push(chunk: Uint8Array): void {
    if (this.status !== 'scanning' || chunk.length === 0) return;
    let bytes = chunk;
    const room = this.maxScanBytes - this.bytesScanned;
    if (bytes.length > room) bytes = bytes.subarray(0, Math.max(0, room));
    this.bytesScanned += bytes.length;
    this.scan(bytes);
    if (this.status === 'scanning' && bytes.length < chunk.length) this.status = 'partial';
  }

  end(opts: { truncated?: boolean } = {}): { status: Exclude<ScanStatus, 'scanning'>; fields: RecordedFields } {
    if (this.status === 'scanning') {
      // A number at top level ends with the document.
      if (this.lex === Lex.Number && this.frames.length === 0 && this.skipDepth === 0) this.finishNumber();
      if (this.lex === Lex.Done) this.status = 'complete';
      else this.status = opts.truncated === true ? 'partial' : 'malformed';
    }
    this.capture.release();
    const status = this.status as Exclude<ScanStatus, 'scanning'>;
    return { status, fields: new RecordedFields(this.hits, status === 'complete') };
  }

  private fail(): void {
    this.status = 'malformed';
  }

  private scan(buf: Uint8Array): void {
    let i = this.bomAt < 3 ? this.skipBom(buf) : 0;
    const n = buf.length;
    while (i < n && this.status === 'scanning') {
      switch (this.lex) {
        case Lex.Skip:
          i = this.skipContainer(buf, i);
          break;
        case Lex.SkipString: {
          const end = this.findStringEnd(buf, i);
          if (end < 0) return;
          this.lex = Lex.Skip;
          i = end + 1;
          break;
        }
        case Lex.String:
          i = this.continueString(buf, i);
          break;
        case Lex.Number:
          i = this.continueNumber(buf, i);
          break;
        case Lex.Literal:
          i = this.continueLiteral(buf, i);
          break;
        default: {
          const b = buf[i] as number;
          if (b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09) {
            i++;
            break;
          }
          this.structural(b);
          i++;
        }
      }
    }
  }

  /** Skips a UTF-8 BOM at the very start, as TextDecoder does for the buffered path. */
  private skipBom(buf: Uint8Array): number {
    let i = 0;
    while (this.bomAt < 3 && i < buf.length) {
      if (buf[i] !== BOM[this.bomAt]) {
        if (this.bomAt > 0) this.fail();
        this.bomAt = 3;
        return i;
      }
      this.bomAt++;
      i++;
    }
    return i;
  }

  /** One significant byte outside strings, numbers and skipped containers. */
  private structural(b: number): void {
    switch (this.lex) {
      case Lex.Value:
      case Lex.ValueOrEnd:
        if (b === 0x5d && this.lex === Lex.ValueOrEnd) return this.closeContainer(true);
        return this.startValue(b);
      case Lex.KeyOrEnd:
        if (b === 0x7d) return this.closeContainer(false);
        if (b !== QUOTE) return this.fail();
        return this.startString(StringRole.Key);
      case Lex.Key:
        if (b !== QUOTE) return this.fail();
        return this.startString(StringRole.Key);
      case Lex.Colon:
        if (b !== 0x3a) return this.fail();
        this.lex = Lex.Value;
        return;
      case Lex.CommaOrEnd:
        return this.afterValue(b);
      case Lex.Done:
        return this.fail();
      default:
        return this.fail();
    }
  }

  private afterValue(b: number): void {
    const top = this.frames[this.frames.length - 1];
    if (top === undefined) return this.fail();
    if (b === 0x2c) {
      if (top.isArray) {
        this.target = top.node.wildcard;
        this.lex = Lex.Value;
      } else {
        this.lex = Lex.Key;
      }
      return;
    }
    if (b === 0x5d && top.isArray) return this.closeContainer(true);
    if (b === 0x7d && !top.isArray) return this.closeContainer(false);
    this.fail();
  }

  private startValue(b: number): void {
    const node = this.target;
    const top = this.frames[this.frames.length - 1];
    if (top?.isArray === true) top.elements++;
    const type = typeOfFirstByte(b);
    if (type === undefined) return this.fail();
    // First match in document order wins, as in fieldsFromValue.
    const newHit = node?.path !== undefined && !this.hits.has(node.path) ? node.path : undefined;
    if (type === 'object' || type === 'array') {
      const isArray = type === 'array';
      const countInto = isArray && newHit !== undefined ? new ArrayMark() : undefined;
      if (newHit !== undefined) this.hits.set(newHit, countInto ?? OBJECT_MARK);
      if (node !== undefined && (hasDescendants(node) || countInto !== undefined)) {
        this.frames.push({ isArray, node, elements: 0, countInto });
        this.target = isArray ? node.wildcard : undefined;
        this.lex = isArray ? Lex.ValueOrEnd : Lex.KeyOrEnd;
      } else {
        this.skipDepth = 1;
        this.lex = Lex.Skip;
      }
      return;
    }
    this.capturePath = newHit;
    if (type === 'string') return this.startString(newHit !== undefined ? StringRole.Captured : StringRole.Ignored);
    if (type === 'number') {
      this.numberText = newHit !== undefined ? String.fromCharCode(b) : '';
      this.lex = Lex.Number;
      return;
    }
    if (newHit !== undefined) this.hits.set(newHit, type === 'null' ? null : b === 0x74);
    this.literal = b === 0x74 ? 'true' : b === 0x66 ? 'false' : 'null';
    this.literalAt = 1;
    this.lex = Lex.Literal;
  }

  private closeContainer(isArray: boolean): void {
    const frame = this.frames.pop();
    if (frame === undefined || frame.isArray !== isArray) return this.fail();
    if (frame.countInto !== undefined) frame.countInto.count = frame.elements;
    this.valueDone();
  }

  /** After any complete value: decide what comes next at the enclosing level. */
  private valueDone(): void {
    if (this.frames.length === 0) {
      this.lex = Lex.Done;
      return;
    }
    this.lex = Lex.CommaOrEnd;
  }

  private skipContainer(buf: Uint8Array, start: number): number {
    let depth = this.skipDepth;
    const n = buf.length;
    for (let i = start; i < n; i++) {
      const b = buf[i];
      if (b === QUOTE) {
        this.skipDepth = depth;
        this.lex = Lex.SkipString;
        this.escapeNext = false;
        return i + 1;
      }
      if (b === 0x7b || b === 0x5b) depth++;
      else if (b === 0x7d || b === 0x5d) {
        depth--;
        if (depth === 0) {
          this.skipDepth = 0;
          this.valueDone();
          return i + 1;
        }
      }
    }
    this.skipDepth = depth;
    return n;
  }

  private startString(role: StringRole): void {
    this.stringRole = role;
    this.escapeNext = false;
    this.lex = Lex.String;
    // Copied into the capture only if it runs past this chunk or needs unescaping (continueString).
    this.capture.begin(false);
  }

  private continueString(buf: Uint8Array, start: number): number {
    const end = this.findStringEnd(buf, start);
    if (this.stringRole !== StringRole.Ignored && !this.capture.active) {
      if (end >= 0 && this.stringInPlace(buf, start, end)) return end + 1;
      this.capture.begin(true);
    }
    const stop = end < 0 ? buf.length : end;
    const limit = this.stringRole === StringRole.Key ? MAX_KEY_BYTES : MAX_CAPTURED_STRING;
    this.capture.append(buf, start, stop, limit);
    if (end < 0) return buf.length;
    this.finishString();
    return end + 1;
  }

  private finishString(): void {
    // An over-long key cannot match a wanted one; treat it as unknown.
    const tooLong = this.stringRole === StringRole.Key && this.capture.overflow;
    const text = tooLong ? undefined : this.capture.text(true);
    if (this.stringRole === StringRole.Key) {
      const frame = this.frames[this.frames.length - 1] as Frame;
      return this.keyDone(text === undefined ? undefined : frame.node.children?.get(text));
    }
    if (this.stringRole === StringRole.Captured && this.capturePath !== undefined) {
      this.hits.set(
        this.capturePath,
        text === undefined ? new CutString('') : this.capture.overflow ? new CutString(text) : text,
      );
    }
    this.capturePath = undefined;
    this.valueDone();
  }

  private keyDone(target: PathNode | undefined): void {
    this.target = target;
    this.lex = Lex.Colon;
  }

  /**
   * A key or wanted string that lies whole in this chunk, read from it without copying: decoding
   * and copying every key through the capture was most of the scan's time (~80 keys in a 10 KB
   * Task, test/codec/json-bench.ts). False (nothing done) for a string the capture must handle:
   * with an escape, or a wanted value longer than the capture cap.
   */
  private stringInPlace(buf: Uint8Array, start: number, end: number): boolean {
    const isKey = this.stringRole === StringRole.Key;
    if (end - start > (isKey ? MAX_KEY_BYTES : MAX_CAPTURED_STRING)) {
      if (!isKey) return false;
      this.keyDone(undefined); // an over-long key cannot match a wanted one
      return true;
    }
    if (hasByteBetween(buf, BACKSLASH, start, end)) return false;
    if (isKey) {
      this.keyDone(this.keyInPlace(buf, start, end));
      return true;
    }
    if (this.capturePath !== undefined) this.hits.set(this.capturePath, utf8.decode(buf.subarray(start, end)));
    this.capturePath = undefined;
    this.valueDone();
    return true;
  }

  /** The wanted child named by the key in `buf[start, end)` (no escapes), compared as bytes. */
  private keyInPlace(buf: Uint8Array, start: number, end: number): PathNode | undefined {
    const node = (this.frames[this.frames.length - 1] as Frame).node;
    const length = end - start;
    if (node.keys === undefined) return undefined;
    const bucket = node.keys[length];
    if (bucket === undefined) return undefined;
    for (const [bytes, child] of bucket) {
      let i = 0;
      while (i < length && bytes[i] === buf[start + i]) i++;
      if (i === length) return child;
    }
    return undefined;
  }

  /**
   * Index of the closing quote at or after `start`, or -1 if the string goes on past this chunk.
   * A quote is escaped when an odd run of backslashes precedes it; runs cannot cross a quote, so
   * counting back to `start` is enough, and `escapeNext` carries a run split across chunks.
   */
  private findStringEnd(buf: Uint8Array, start: number): number {
    let from = start;
    if (this.escapeNext) {
      if (from >= buf.length) return -1;
      from++;
      this.escapeNext = false;
    }
    const floor = from;
    for (;;) {
      const q = indexOfByte(buf, QUOTE, from);
      if (q < 0) {
        this.escapeNext = (backslashRun(buf, buf.length - 1, floor) & 1) === 1;
        return -1;
      }
      if ((backslashRun(buf, q - 1, floor) & 1) === 0) return q;
      from = q + 1;
    }
  }

  private continueNumber(buf: Uint8Array, start: number): number {
    let i = start;
    while (i < buf.length && isNumberByte(buf[i] as number)) i++;
    // Number bytes are ASCII; a wanted number is kept as text up to the cap, nothing else is.
    if (this.capturePath !== undefined) {
      for (let j = start; j < i && this.numberText.length < MAX_NUMBER_BYTES; j++) {
        this.numberText += String.fromCharCode(buf[j] as number);
      }
    }
    if (i < buf.length) this.finishNumber();
    return i;
  }

  private finishNumber(): void {
    if (this.capturePath !== undefined) {
      const text = this.numberText;
      const value = Number(text);
      if (!JSON_NUMBER.test(text) || !Number.isFinite(value)) return this.fail();
      this.hits.set(this.capturePath, value);
    }
    this.capturePath = undefined;
    this.valueDone();
  }

  private continueLiteral(buf: Uint8Array, start: number): number {
    let i = start;
    while (i < buf.length && this.literalAt < this.literal.length) {
      if (buf[i] !== this.literal.charCodeAt(this.literalAt)) {
        this.fail();
        return i;
      }
      this.literalAt++;
      i++;
    }
    if (this.literalAt === this.literal.length) this.valueDone();
    return i;
  }
}

/** Whether `byte` occurs in `buf[from, to)`; a loop, as JSON strings here are mostly short. */
function hasByteBetween(buf: Uint8Array, byte: number, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (buf[i] === byte) return true;
  return false;
}

function backslashRun(buf: Uint8Array, from: number, floor: number): number {
  let count = 0;
  for (let j = from; j >= floor && buf[j] === BACKSLASH; j--) count++;
  return count;
}

function isNumberByte(b: number): boolean {
  return (b >= 0x30 && b <= 0x39) || b === 0x2d || b === 0x2b || b === 0x2e || b === 0x65 || b === 0x45;
}

function typeOfFirstByte(b: number): JsonType | undefined {
  if (b === 0x7b) return 'object';
  if (b === 0x5b) return 'array';
  if (b === QUOTE) return 'string';
  if (b === 0x2d || (b >= 0x30 && b <= 0x39)) return 'number';
  if (b === 0x74 || b === 0x66) return 'boolean';
  if (b === 0x6e) return 'null';
  return undefined;
}
