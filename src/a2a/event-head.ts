/**
 * Reads a task stream's later status and artifact updates in place, from the head of their
 * bytes, instead of parsing each whole (inspection that reads only what it needs).
 * The stream machine (src/a2a/stream.ts) asks this first once the stream has named its task;
 * `undefined` sends the event to the full parse, so the reader only has to be right about
 * events it accepts, and accepts only what it fully understands:
 *  - the JSON-RPC envelope (`jsonrpc`, then an `id` equal byte for byte to the request's, then
 *    `result`), or none on REST; an `error`, any other envelope key, or an `id` after `result`:
 *    full parse;
 *  - a `statusUpdate` / `artifactUpdate` member (1.0, 0.3 REST), or a bare 0.3 payload whose
 *    `kind` is `status-update` / `artifact-update` (bare: only the keys such a payload has);
 *  - the stream's own task id, with no escapes, and a usual state spelling (task-state.ts).
 *    Anything else — another task, an escaped id, a state spelled oddly, a key cut by an escape,
 *    a last byte that is not `}`: full parse, which then reports what is wrong.
 * Values it does not need are skipped, not checked. It stops as soon as it has the event's kind,
 * task id and state (1.0), or at the end of the payload object (0.3, whose `final` sits at its
 * end). What it therefore does not see, past that point, and the full parse would report:
 * invalid JSON, duplicate keys, an envelope key after `result` (an `error` beside it), a second
 * member key (an ambiguous payload), and version-shape evidence: it reports a 0.3 shape when
 * the part it read shows one (a `kind`, a 0.3 state spelling, `final`), and no shape otherwise.
 * `inspection.streamEvents: full` turns it off.
 */
import { bytesAt } from '../codec/byte-search.js';
import type { RequestContext } from './checks.js';
import type { Payload, PayloadKind } from './payload.js';
import { USUAL_SPELLINGS, type TaskState } from './task-state.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN = 0x7b;
const CLOSE = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

const EMPTY = new Uint8Array(0);
const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);

// Keys, by where they may appear. Indexes are what `key()` returns.
const ENVELOPE = ['jsonrpc', 'id', 'result'].map(bytes);
const [JSONRPC, ID, RESULT] = [0, 1, 2];
const MEMBERS = ['statusUpdate', 'artifactUpdate'].map(bytes);
const MEMBER_KINDS: readonly PayloadKind[] = ['statusUpdate', 'artifactUpdate'];
/** Keys of a status or artifact update; in a bare payload no other key is accepted. */
const FIELDS = ['kind', 'taskId', 'status', 'final', 'contextId', 'artifact', 'append', 'lastChunk', 'metadata'].map(
  bytes,
);
const [KIND, TASK_ID, STATUS, FINAL, CONTEXT_ID] = [0, 1, 2, 3, 4];
const STATE = [bytes('state')];
const KIND_VALUES = ['status-update', 'artifact-update'].map(bytes);
const TRUE = bytes('true');
const FALSE = bytes('false');

interface Spelling {
  readonly bytes: Uint8Array;
  readonly state: TaskState;
  /** A 0.3 spelling (payload.ts `shapeOf`: not TASK_STATE_*, or TASK_STATE_CANCELLED). */
  readonly legacy: boolean;
}
const SPELLINGS: readonly Spelling[] = [...USUAL_SPELLINGS].map(([raw, state]) => ({
  bytes: bytes(raw),
  state,
  legacy: raw === 'TASK_STATE_CANCELLED' || !raw.startsWith('TASK_STATE_'),
}));
/** The spellings by length in bytes: a state is compared with one or two of them, not all. */
const SPELLINGS_BY_LENGTH: ReadonlyArray<readonly Spelling[]> = Array.from({ length: 41 }, (_, n) =>
  SPELLINGS.filter((s) => s.bytes.length === n),
);

/** Longest stable head remembered: envelope, member key and two ids take ~150 B. */
export const MAX_HEAD_BYTES = 1024;

/** The stable head of an earlier event (`EventHeadReader.sameHead`) and what it said. */
interface SameHead {
  readonly bytes: Uint8Array;
  readonly kind: PayloadKind;
  readonly bare: boolean;
  readonly shape03: boolean;
}

/** What one stream expects of its events. */
export interface HeadExpectation {
  /** The stream's task id. */
  readonly taskId: string;
  /** JSON-RPC: the request id's JSON text when the request had one (`undefined`: any id), else REST (`null`). */
  readonly jsonrpcId: string | undefined | null;
  /** Read to the end of the payload (0.3 streams, for `final`). */
  readonly wholePayload: boolean;
}

/** What the stream answering `req` expects of its events, once it has named `taskId`. */
export function headExpectation(req: RequestContext, taskId: string): HeadExpectation {
  const jsonrpcId =
    req.binding !== 'jsonrpc' ? null : req.jsonrpcIdPresent === true ? JSON.stringify(req.jsonrpcId) : undefined;
  return { taskId, jsonrpcId, wholePayload: req.version === '0.3' };
}

/** A reader for one stream's events; `undefined` when its task id cannot be matched in place. */
export function createEventHeadReader(expect: HeadExpectation): EventHeadReader | undefined {
  // Matched as bytes without unescaping: printable ASCII with nothing JSON would escape.
  if (!/^[\x20-\x7e]*$/.test(expect.taskId) || /["\\]/.test(expect.taskId)) return undefined;
  return new EventHeadReader(expect);
}

export class EventHeadReader {
  private readonly taskId: Uint8Array;
  private readonly jsonrpcId: Uint8Array | undefined;
  private readonly envelope: boolean;
  private buf: Uint8Array = EMPTY;
  private at = 0;
  private end = 0;
  /** The text of the last string `quoted()` read. */
  private spanFrom = 0;
  private spanTo = 0;
  // What the event showed, for `payload()`.
  private kind: PayloadKind | undefined = undefined;
  private sawTaskId = false;
  private state: TaskState | undefined = undefined;
  private final: boolean | undefined = undefined;
  private shape03 = false;
  /** The payload has no member key around it (0.3 JSON-RPC): only an update's own keys are accepted. */
  private bare = false;
  /** What it needs is read: stop (1.0 streams). */
  private done = false;
  private start = 0;
  /**
   * The payload's first keys, while they are only `kind`, `taskId` and `contextId` (the same in
   * every event of a stream): where they end, and whether they held the task id and a `kind`.
   */
  private stableRun = false;
  private stableEnd = -1;
  private stableTask = false;
  private stableKind = false;
  /** The stable heads of the last status and artifact update read: each stream repeats its own. */
  private readonly heads: Array<SameHead | undefined> = [undefined, undefined];

  constructor(private readonly expect: HeadExpectation) {
    this.taskId = bytes(expect.taskId);
    this.jsonrpcId = typeof expect.jsonrpcId === 'string' ? bytes(expect.jsonrpcId) : undefined;
    this.envelope = expect.jsonrpcId !== null;
  }

  /** Memory the remembered heads take (their buffers: copies, never the chunks they came in). */
  get heldBytes(): number {
    return this.heads.reduce((sum, head) => sum + (head?.bytes.buffer.byteLength ?? 0), 0);
  }

  /** The event's payload, read from `buf[start, end)`, or `undefined`: parse it whole. */
  read(buf: Uint8Array, start: number, end: number): Payload | undefined {
    if (end <= start) return undefined;
    let last = end - 1;
    while (last > start && (buf[last] as number) <= 0x20) last--;
    if (buf[last] !== CLOSE) return undefined;
    this.buf = buf;
    this.at = start;
    this.end = end;
    this.kind = undefined;
    this.sawTaskId = false;
    this.state = undefined;
    this.final = undefined;
    this.shape03 = false;
    this.done = false;
    this.start = start;
    this.stableRun = false;
    this.stableEnd = -1;
    this.stableTask = false;
    this.stableKind = false;
    const same = this.sameHead();
    const ok = same !== undefined ? this.resume(same) : this.envelope ? this.readEnvelope() : this.readPayload();
    if (ok && same === undefined) this.remember();
    this.buf = EMPTY; // an idle stream keeps no chunk
    return ok ? this.payload() : undefined;
  }

  /**
   * Events of one stream mostly start with the same bytes up to their task and context ids
   * (envelope, id, member key, ids): when this one starts as an earlier one did, what those bytes
   * said holds again, and reading goes on where they end. Compared with memcmp, it spares the
   * walk over most of the head (test/a2a/event-head.test.ts checks it changes no result).
   */
  private sameHead(): SameHead | undefined {
    for (const head of this.heads) {
      if (head !== undefined && bytesAt(this.buf, this.start, head.bytes)) return head;
    }
    return undefined;
  }

  private resume(head: SameHead): boolean {
    this.kind = head.kind;
    this.sawTaskId = true;
    this.shape03 = head.shape03;
    this.at = this.start + head.bytes.length;
    this.bare = head.bare;
    return this.fieldsFrom(true);
  }

  /** Keep this event's stable head when it holds the task id and the kind. */
  private remember(): void {
    const { kind, bare, stableKind } = this;
    if (!this.stableTask || kind === undefined || (bare && !stableKind)) return;
    if (this.stableEnd - this.start > MAX_HEAD_BYTES) return; // a hostile agent's huge ids stay with their chunk
    // A copy: `Buffer#slice` would be a view keeping the whole chunk alive with the stream.
    const bytes = Uint8Array.prototype.slice.call(this.buf, this.start, this.stableEnd);
    // Within the stable keys only a `kind` is shape evidence.
    this.heads[kind === 'statusUpdate' ? 0 : 1] = { bytes, kind, bare, shape03: stableKind };
  }

  private payload(): Payload {
    const { kind, state } = this;
    return {
      kind,
      ambiguous: false,
      taskId: this.expect.taskId,
      contextId: undefined,
      messageId: undefined,
      state: kind === 'statusUpdate' ? state : undefined,
      artifactCount: undefined,
      historyCount: undefined,
      final: kind === 'statusUpdate' ? this.final : undefined,
      shape: this.shape03 ? '0.3' : undefined,
    };
  }

  private readEnvelope(): boolean {
    if (!this.open()) return false;
    let sawId = this.jsonrpcId === undefined;
    for (;;) {
      const k = this.key(ENVELOPE);
      if (k === RESULT) return sawId && this.readPayload();
      if (k === ID && this.jsonrpcId !== undefined) {
        const from = this.at;
        if (!this.skipValue() || !this.spansAt(from, this.at, this.jsonrpcId)) return false;
        sawId = true;
      } else if (k === JSONRPC || k === ID) {
        if (!this.skipValue()) return false;
      } else return false;
      if (!this.comma()) return false;
    }
  }

  /** The payload object at the cursor, member-wrapped or bare. */
  private readPayload(): boolean {
    if (!this.open()) return false;
    const keyAt = this.at;
    const member = this.key(MEMBERS);
    if (member >= 0) {
      this.kind = MEMBER_KINDS[member];
      return this.open() && this.readFields(false);
    }
    this.at = keyAt; // no member key: the payload itself (0.3 JSON-RPC)
    return this.readFields(true);
  }

  /** Keys of a status or artifact update, until what it needs is read or the object ends. */
  private readFields(bare: boolean): boolean {
    if (this.peek() === CLOSE) return false; // `{}`: no task id
    this.bare = bare;
    this.stableRun = true;
    return this.fieldsFrom(false);
  }

  /** The fields from the cursor: at a key, or (`afterValue`) after one's value. */
  private fieldsFrom(afterValue: boolean): boolean {
    for (let first = !afterValue; ; first = false) {
      if (!first) {
        if (!this.expect.wholePayload && this.complete()) return true;
        const next = this.next();
        if (next === CLOSE) return this.complete();
        if (next !== COMMA) return false;
      }
      const k = this.key(FIELDS);
      if (!this.readField(k)) return false;
      if (this.done) return true;
      if (this.stableRun) this.extendStable(k);
    }
  }

  private extendStable(k: number): void {
    this.stableRun = k === KIND || k === TASK_ID || k === CONTEXT_ID;
    if (!this.stableRun) return;
    this.stableEnd = this.at;
    if (k === TASK_ID) this.stableTask = true;
    if (k === KIND) this.stableKind = true;
  }

  /** The value of field `k` (an index in FIELDS, -1 another key, -2 none). */
  private readField(k: number): boolean {
    if (k === KIND) {
      this.shape03 = true;
      if (!this.bare) return this.skipValue();
      const v = this.stringIndex(KIND_VALUES);
      if (v < 0) return false;
      this.kind = MEMBER_KINDS[v];
      return true;
    }
    if (k === TASK_ID) return (this.sawTaskId = this.stringIs(this.taskId));
    if (k === STATUS) return this.readStatus();
    if (k === FINAL) {
      this.shape03 = true;
      if (this.literal(TRUE)) this.final = true;
      else if (this.literal(FALSE)) this.final = false;
      else return false;
      return true;
    }
    return (k >= 0 || (k === -1 && !this.bare)) && this.skipValue();
  }

  /** The `status` object: its `state`, other keys skipped. */
  private readStatus(): boolean {
    if (!this.open()) return false;
    if (this.peek() === CLOSE) return this.next() === CLOSE;
    for (;;) {
      const k = this.key(STATE);
      if (k === 0) {
        const spelling = this.stateSpelling();
        if (spelling === undefined) return false;
        this.state = spelling.state;
        if (spelling.legacy) this.shape03 = true;
        if (!this.expect.wholePayload && this.complete()) {
          this.done = true;
          return true;
        }
      } else if (k !== -1 || !this.skipValue()) return false;
      const next = this.next();
      if (next === CLOSE) return true;
      if (next !== COMMA) return false;
    }
  }

  /** The usual spelling the state value here is, if it is one. */
  private stateSpelling(): Spelling | undefined {
    if (!this.quoted() || this.spanTo - this.spanFrom > 40) return undefined;
    for (const s of SPELLINGS_BY_LENGTH[this.spanTo - this.spanFrom] as readonly Spelling[]) {
      if (this.spansAt(this.spanFrom, this.spanTo, s.bytes)) return s;
    }
    return undefined;
  }

  /** The event's kind and task id are known, and its state when it has one. */
  private complete(): boolean {
    return this.kind !== undefined && this.sawTaskId && (this.kind === 'artifactUpdate' || this.state !== undefined);
  }

  // --- the cursor -------------------------------------------------------------------------

  private peek(): number {
    const { buf, end } = this;
    while (this.at < end && (buf[this.at] as number) <= 0x20) this.at++;
    return this.at < end ? (buf[this.at] as number) : -1;
  }

  private next(): number {
    const b = this.peek();
    if (b >= 0) this.at++;
    return b;
  }

  private open(): boolean {
    return this.next() === OPEN;
  }

  private comma(): boolean {
    return this.next() === COMMA;
  }

  /** A string here with no escapes: its text is `[spanFrom, spanTo)`, the cursor after it. */
  private quoted(): boolean {
    if (this.peek() !== QUOTE) return false;
    const from = this.at + 1;
    const close = this.closingQuote(from);
    if (close < 0) return false;
    this.spanFrom = from;
    this.spanTo = close;
    this.at = close + 1;
    return true;
  }

  /** The index in `names` of the span just read, or -1. */
  private spanIndex(names: readonly Uint8Array[]): number {
    for (let i = 0; i < names.length; i++)
      if (this.spansAt(this.spanFrom, this.spanTo, names[i] as Uint8Array)) return i;
    return -1;
  }

  /**
   * A key and its colon: its index in `names`, -1 for another plain key, -2 when there is no
   * key here or it holds an escape.
   */
  private key(names: readonly Uint8Array[]): number {
    if (!this.quoted() || this.next() !== COLON) return -2;
    return this.spanIndex(names);
  }

  /** A string value equal to `want`, with no escapes. */
  private stringIs(want: Uint8Array): boolean {
    return this.quoted() && this.spansAt(this.spanFrom, this.spanTo, want);
  }

  /** The index in `values` of the string value here (no escapes), or -1. */
  private stringIndex(values: readonly Uint8Array[]): number {
    return this.quoted() ? this.spanIndex(values) : -1;
  }

  private literal(word: Uint8Array): boolean {
    if (this.peek() < 0 || !this.spansAt(this.at, this.at + word.length, word)) return false;
    this.at += word.length;
    return true;
  }

  /** Index of the quote closing a string whose text starts at `from`; -1 for an escape or no end. */
  private closingQuote(from: number): number {
    const { buf, end } = this;
    for (let i = from; i < end; i++) {
      const b = buf[i];
      if (b === QUOTE) return i;
      if (b === BACKSLASH) return -1;
    }
    return -1;
  }

  private spansAt(from: number, to: number, want: Uint8Array): boolean {
    if (to - from !== want.length || to > this.end) return false;
    const { buf } = this;
    for (let i = 0; i < want.length; i++) if (buf[from + i] !== want[i]) return false;
    return true;
  }

  /** Past one value, whatever it is, without checking it (strings, nesting and delimiters only). */
  private skipValue(): boolean {
    const { buf, end } = this;
    const first = this.peek();
    if (first === QUOTE) return this.skipString();
    if (first !== OPEN && first !== OPEN_ARRAY) {
      while (this.at < end) {
        const b = buf[this.at] as number;
        if (b === COMMA || b === CLOSE || b === CLOSE_ARRAY || b <= 0x20) return true;
        this.at++;
      }
      return false;
    }
    let depth = 0;
    while (this.at < end) {
      const b = buf[this.at] as number;
      if (b === QUOTE) {
        if (!this.skipString()) return false;
        continue;
      }
      this.at++;
      if (b === OPEN || b === OPEN_ARRAY) depth++;
      else if ((b === CLOSE || b === CLOSE_ARRAY) && --depth === 0) return true;
    }
    return false;
  }

  /** At a quote: past the string, escapes and all. */
  private skipString(): boolean {
    const { buf, end } = this;
    for (let i = this.at + 1; i < end; i++) {
      const b = buf[i];
      if (b === BACKSLASH) i++;
      else if (b === QUOTE) {
        this.at = i + 1;
        return true;
      }
    }
    return false;
  }
}
