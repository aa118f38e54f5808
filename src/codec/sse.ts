/**
 * Incremental `text/event-stream` decoder over bytes (W3C HTML "server-sent events" §9.2.6:
 * LF / CR / CRLF line ends, `:` comments, multi-line `data`, `event`, `id`, `retry`, a leading
 * BOM, any chunking), with a hard cap on the bytes one event may hold.
 *
 * Why by hand, and not `eventsource-parser` (which it replaced, and which stays in the tests as
 * the oracle: test/codec/sse.test.ts decodes random streams with both and compares): that
 * parser takes text, so every byte of a stream was decoded to a string first, and each event
 * came out as a string that inspection then had to parse. Here lines are found in the bytes
 * (memchr) and an event's data is handed over as a view of the chunk it arrived in, so the
 * stream inspector reads the head of most events in place (src/a2a/event-head.ts) and text is
 * made only when someone reads `data`. Measured inside the gateway on bench scenario 3
 * (bench/ANALYSIS.md): the decoding and framing of text cost ~0.5 µs of ~1.3 µs per event
 * left after an early exit; the goal allowed ~0.35 µs.
 *
 * Decoding `data` per event gives the text the W3C stream decoding would: UTF-8 decoders
 * resynchronise at ASCII bytes, and an event's data is bounded by them (`data:`, line ends).
 * A BOM is dropped at the start of the stream only.
 *
 * An event longer than the cap is skipped whole: its lines are dropped, not held, until the
 * blank line that ends it. Whether the stream ended inside an event (no blank line after it),
 * which W3C clients drop silently, is reported, because a gateway wants to know.
 */
import { indexOfByte } from './byte-search.js';
import { ByteCarry, ByteParts } from './byte-carry.js';

export interface SseEvent {
  readonly event: string | undefined;
  readonly id: string | undefined;
  /** The data (its lines joined with LF), decoded from `bytes` when first read (U+FFFD for invalid UTF-8). */
  readonly data: string;
  /**
   * The data's bytes are `bytes[start, end)`: the pushed chunk itself when the event lay in one
   * chunk (no copy; pushed chunks must not be changed afterwards), else a copy of its own.
   */
  readonly bytes: Uint8Array;
  readonly start: number;
  readonly end: number;
  /** Only set on an event the stream ended inside of (no blank line after it). */
  readonly unterminated: true | undefined;
}

export interface SseStats {
  readonly events: number;
  /** Comment lines (`: ping` keepalives and the like). */
  readonly comments: number;
  /** `retry:` lines with a valid value. */
  readonly retries: number;
  /** Lines with an unknown field name or an invalid `retry` value (ignored, as W3C says). */
  readonly invalidLines: number;
  /** Events skipped whole because they were longer than `maxEventBytes`. */
  readonly oversizeEvents: number;
  /** The stream ended inside an event. */
  readonly unterminated: boolean;
  readonly bytes: number;
}

export interface SseDecoder {
  push(chunk: Uint8Array): void;
  end(): SseStats;
  /** Upper bound of the bytes the decoder holds for the event in progress. */
  readonly heldBytes: number;
}

export interface SseDecoderOptions {
  /**
   * Largest event `data` decoded, in bytes. Longer events are skipped and counted in
   * `oversizeEvents`; the decoder holds at most this plus `LINE_SLACK`.
   */
  readonly maxEventBytes: number;
  readonly onEvent: (event: SseEvent) => void;
}

/** Room for an event's `data: ` prefixes, `id:` and `event:` lines beside its data. */
export const LINE_SLACK = 4 * 1024;
const LF = 0x0a;
const CR = 0x0d;
const COLON = 0x3a;
const SPACE = 0x20;
const DATA = bytesOf('data');
const EVENT = bytesOf('event');
const ID = bytesOf('id');
const RETRY = bytesOf('retry');
// `ignoreBOM`: a U+FEFF that starts an event's data is a character (only the stream's is dropped).
const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });
const EMPTY = new Uint8Array(0);
const BufferClass = (globalThis as { Buffer?: { isBuffer(v: unknown): boolean } }).Buffer;

/**
 * `buf[from, to)` as text. A Node Buffer (what sockets deliver) decodes itself ~30 % faster than
 * TextDecoder does a view of it (~150 vs ~210 ns for a 509 B event), with the same U+FFFD for
 * invalid bytes and a BOM kept (test/codec/sse-oracle.test.ts feeds both).
 */
function text(buf: Uint8Array, from: number, to: number): string {
  if (BufferClass?.isBuffer(buf) === true) return (buf as Buffer).toString('utf8', from, to);
  return utf8.decode(buf.subarray(from, to));
}

export function createSseDecoder(opts: SseDecoderOptions): SseDecoder {
  return new Decoder(opts);
}

/** One event; its text is made only when read. */
class DecodedEvent implements SseEvent {
  private decoded: string | undefined = undefined;

  constructor(
    readonly event: string | undefined,
    readonly id: string | undefined,
    readonly bytes: Uint8Array,
    readonly start: number,
    readonly end: number,
    readonly unterminated: true | undefined,
  ) {}

  get data(): string {
    this.decoded ??= text(this.bytes, this.start, this.end);
    return this.decoded;
  }
}

// A class with every field set up front: one shape for every stream's decoder.
class Decoder implements SseDecoder {
  private events = 0;
  private comments = 0;
  private retries = 0;
  private invalidLines = 0;
  private oversizeEvents = 0;
  private bytes = 0;
  private unterminated = false;
  private atStreamStart = true;
  /** The last chunk ended with CR: an LF that starts the next one belongs to it. */
  private afterCR = false;
  /** The line a chunk ended inside of, as views of its chunks. */
  private readonly line = new ByteParts();
  /** Bytes of the current line came in an earlier chunk (held in `line`, or dropped while skipping). */
  private lineGoesOn = false;
  // The event in progress.
  private dataLines = 0;
  private dataBytes = 0;
  /** Its one data line, where it lies: in the chunk being pushed, or in the buffer `line` was joined into. */
  private inPlace: Uint8Array | undefined = undefined;
  private inPlaceStart = 0;
  private inPlaceEnd = 0;
  /** `inPlace` is the decoder's own buffer (a long line that came in pieces), not a pushed chunk. */
  private inPlaceOwned = false;
  /** Its data, once it has more than one line or outlives the chunk it came in. */
  private readonly data = new ByteCarry();
  private eventType: string | undefined = undefined;
  private id: string | undefined = undefined;
  /** It is over the cap: its lines are dropped until the blank line that ends it. */
  private skipping = false;
  /** Where the next CR of the chunk being pushed is (LF-only streams search for it once a chunk). */
  private nextCR = -1;

  constructor(private readonly opts: SseDecoderOptions) {}

  get heldBytes(): number {
    const owned = this.inPlaceOwned ? this.inPlaceEnd - this.inPlaceStart : 0;
    return this.line.length + this.data.length + owned;
  }

  push(chunk: Uint8Array): void {
    const n = chunk.length;
    this.bytes += n;
    if (n === 0) return;
    let at = 0;
    if (this.afterCR) {
      this.afterCR = false;
      if (chunk[0] === LF) at = 1;
    }
    this.nextCR = n > at ? indexOfByte(chunk, CR, at) : -1;
    while (at < n) {
      // A blank line right after a line end is the usual end of an event: no search for it.
      const end = chunk[at] === LF ? at : this.lineEnd(chunk, at);
      if (end < 0) {
        this.holdLine(chunk, at, n);
        break;
      }
      this.finishLine(chunk, at, end);
      at = end + 1;
      if (chunk[end] === CR) {
        if (at === n) this.afterCR = true;
        else if (chunk[at] === LF) at++;
      }
    }
    // The event goes on in the next chunk: keep its data line, which lies in this one.
    if (this.inPlace !== undefined && !this.inPlaceOwned) this.copyInPlace();
  }

  end(): SseStats {
    if (this.lineGoesOn) this.finishLine(EMPTY, 0, 0);
    if (this.skipping) this.unterminated = true;
    this.dispatch(true);
    return {
      events: this.events,
      comments: this.comments,
      retries: this.retries,
      invalidLines: this.invalidLines,
      oversizeEvents: this.oversizeEvents,
      unterminated: this.unterminated,
      bytes: this.bytes,
    };
  }

  /** Index of the CR or LF that ends the line starting at `from`, or -1. */
  private lineEnd(chunk: Uint8Array, from: number): number {
    const lf = indexOfByte(chunk, LF, from);
    if (this.nextCR >= 0 && this.nextCR < from) this.nextCR = indexOfByte(chunk, CR, from);
    const cr = this.nextCR;
    if (cr < 0) return lf;
    return lf < 0 || cr < lf ? cr : lf;
  }

  /** The chunk ended inside a line: hold its bytes. */
  private holdLine(chunk: Uint8Array, from: number, to: number): void {
    this.lineGoesOn = true;
    this.keepPiece(chunk, from, to);
  }

  /** A piece of the line in progress, up to the cap (past it the event is skipped). */
  private keepPiece(chunk: Uint8Array, from: number, to: number): void {
    if (this.skipping) return;
    if (this.line.length + this.dataBytes + (to - from) > this.opts.maxEventBytes + LINE_SLACK) return this.skip();
    this.line.append(chunk, from, to);
  }

  /** A line ended at `end` in `chunk`; it started at `from`, or in earlier chunks. */
  private finishLine(chunk: Uint8Array, from: number, end: number): void {
    if (!this.lineGoesOn) return this.onLine(chunk, from, end, false);
    this.lineGoesOn = false;
    this.keepPiece(chunk, from, end);
    // A line of a skipped event (its bytes dropped): not blank, nothing to do.
    if (this.skipping) return;
    const joined = this.line.join();
    this.onLine(joined, 0, joined.length, true);
  }

  /** One line, `buf[from, end)`; `owned`: `buf` is the decoder's own (a joined line), not a pushed chunk. */
  private onLine(buf: Uint8Array, from: number, end: number, owned: boolean): void {
    let s = from;
    if (this.atStreamStart) {
      this.atStreamStart = false;
      if (end - s >= 3 && buf[s] === 0xef && buf[s + 1] === 0xbb && buf[s + 2] === 0xbf) s += 3;
    }
    if (s === end) return this.dispatch(false);
    if (this.skipping) return;
    if (buf[s] === COLON) {
      this.comments++;
      return;
    }
    let colon = s;
    while (colon < end && buf[colon] !== COLON) colon++;
    let value = colon < end ? colon + 1 : end;
    if (value < end && buf[value] === SPACE) value++;
    if (isName(buf, s, colon, DATA)) this.addData(buf, value, end, owned);
    else if (isName(buf, s, colon, EVENT)) this.eventType = value < end ? text(buf, value, end) : undefined;
    else if (isName(buf, s, colon, ID)) {
      if (!hasNul(buf, value, end)) this.id = text(buf, value, end);
    } else if (isName(buf, s, colon, RETRY) && value < end && allDigits(buf, value, end)) this.retries++;
    else this.invalidLines++;
  }

  private addData(buf: Uint8Array, from: number, end: number, owned: boolean): void {
    this.dataLines++;
    const joined = this.dataBytes + (this.dataLines > 1 ? 1 : 0) + (end - from);
    if (joined > this.opts.maxEventBytes) return this.skip();
    this.dataBytes = joined;
    if (this.dataLines === 1) {
      // A line that came in pieces was joined into a buffer of its own: no need to copy it again.
      this.inPlaceOwned = owned;
      this.inPlace = buf;
      this.inPlaceStart = from;
      this.inPlaceEnd = end;
      return;
    }
    if (this.inPlace !== undefined) this.copyInPlace();
    this.data.push(LF); // lines after the first are joined with LF
    this.data.append(buf, from, end);
  }

  private copyInPlace(): void {
    const buf = this.inPlace as Uint8Array;
    this.inPlace = undefined;
    this.inPlaceOwned = false;
    this.data.append(buf, this.inPlaceStart, this.inPlaceEnd);
  }

  /** The event in progress is over the cap: drop what it holds and its lines until its end. */
  private skip(): void {
    this.oversizeEvents++;
    this.skipping = true;
    this.inPlace = undefined;
    this.inPlaceOwned = false;
    this.line.clear();
    this.data.clear();
  }

  private dispatch(atEof: boolean): void {
    const { dataLines, skipping, inPlace } = this;
    let event: DecodedEvent | undefined;
    if (dataLines > 0 && !skipping) {
      const bytes = inPlace ?? this.data.take(); // handed to the event: no copy
      const start = inPlace !== undefined ? this.inPlaceStart : 0;
      event = new DecodedEvent(this.eventType, this.id, bytes, start, start + this.dataBytes, atEof ? true : undefined);
      if (atEof) this.unterminated = true;
      else this.events++;
    }
    this.dataLines = 0;
    this.dataBytes = 0;
    this.inPlace = undefined;
    this.inPlaceOwned = false;
    this.data.clear();
    this.eventType = undefined;
    this.id = undefined;
    this.skipping = false;
    if (event !== undefined) this.opts.onEvent(event);
  }
}

function bytesOf(name: string): Uint8Array {
  return new TextEncoder().encode(name);
}

/** `buf[from, to)` spells `name`. */
function isName(buf: Uint8Array, from: number, to: number, name: Uint8Array): boolean {
  if (to - from !== name.length) return false;
  for (let i = 0; i < name.length; i++) if (buf[from + i] !== name[i]) return false;
  return true;
}

/** W3C: an `id` holding U+0000 is ignored. */
function hasNul(buf: Uint8Array, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (buf[i] === 0) return true;
  return false;
}

function allDigits(buf: Uint8Array, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const b = buf[i] as number;
    if (b < 0x30 || b > 0x39) return false;
  }
  return true;
}
