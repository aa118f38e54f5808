/**
 * Incremental `text/event-stream` decoder over bytes (W3C HTML "server-sent events" grammar:
 * LF / CR / CRLF line ends, `:` comments, multi-line `data`, `event`, `id`, `retry`, a leading
 * BOM, any chunking), with a hard cap on the bytes one event may hold.
 *
 * The grammar is `eventsource-parser`'s. Written here by hand is only what it lacks:
 *  - bytes in: it takes strings, so a streaming UTF-8 decoder sits in front (it also drops the
 *    BOM and turns invalid UTF-8 into U+FFFD, as the W3C decoding rules ask). It is
 *    `Utf8Stream`, not `TextDecoder` in stream mode, which cost several times the parser
 *    (utf8-stream.ts has the numbers). The parser stays: measured on the SSE captures (~500 B
 *    events), decoding + framing take ~0.6 µs per event, the parser's part ~0.15 µs, against
 *    ~3.5 µs for JSON.parse of the event's data; a hand-written line splitter would save little;
 *  - a bounded skip of an oversized event: its `maxBufferSize` stops the parser, but after
 *    `reset()` it would resume in the middle of that event and read its remaining lines as new
 *    ones. So we look for the event's terminating blank line ourselves, in the bytes and without
 *    decoding them, and resume the parser after it;
 *  - whether the stream ended inside an event (an unterminated last event), which W3C clients
 *    drop silently but a gateway wants to report.
 * Chunks are cut into pieces of at most `PIECE_BYTES` so no decoded string exceeds the cap by
 * more than one piece.
 */
import { createParser, type EventSourceParser } from 'eventsource-parser';
import { indexOfByte } from './byte-search.js';
import { Utf8Stream } from './utf8-stream.js';

export interface SseEvent {
  readonly event: string | undefined;
  readonly id: string | undefined;
  readonly data: string;
  /** Only set on an event the stream ended inside of (no blank line after it). */
  readonly unterminated?: true;
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
   * Largest event `data` decoded, in characters (bytes, for ASCII JSON). Longer events are
   * skipped and counted in `oversizeEvents`; memory stays below this plus a few KiB.
   */
  readonly maxEventBytes: number;
  readonly onEvent: (event: SseEvent) => void;
}

export const PIECE_BYTES = 64 * 1024;
const LINE_SLACK = 4 * 1024;
const LF = 0x0a;
const CR = 0x0d;

export function createSseDecoder(opts: SseDecoderOptions): SseDecoder {
  return new Decoder(opts);
}

class Decoder implements SseDecoder {
  private readonly parser: EventSourceParser;
  private readonly text = new Utf8Stream();
  private events = 0;
  private comments = 0;
  private retries = 0;
  private invalidLines = 0;
  private oversizeEvents = 0;
  private bytes = 0;
  private bytesSinceEvent = 0;
  private overflowed = false;
  private atEof = false;
  private unterminated = false;
  /** Set while skipping the rest of an oversized event. */
  private skip: BlankLineFinder | undefined;
  private lastByte = -1;

  constructor(private readonly opts: SseDecoderOptions) {
    this.parser = createParser({
      // The parser caps pending line + data; the slack keeps an event whose data fits the cap
      // from tripping it because of its `data: ` prefixes or an `id:` line, so whether an
      // event counts as oversized does not depend on how the bytes were chunked.
      maxBufferSize: opts.maxEventBytes + LINE_SLACK,
      onEvent: (message) => this.dispatch(message),
      onComment: () => {
        this.comments++;
      },
      onRetry: () => {
        this.retries++;
      },
      onError: (error) => {
        if (error.type === 'max-buffer-size-exceeded') this.overflowed = true;
        else this.invalidLines++;
      },
    });
  }

  get heldBytes(): number {
    return this.skip !== undefined
      ? 0
      : Math.min(this.bytesSinceEvent, this.opts.maxEventBytes + LINE_SLACK + PIECE_BYTES);
  }

  push(chunk: Uint8Array): void {
    this.bytes += chunk.length;
    if (chunk.length <= PIECE_BYTES) return this.pushPiece(chunk); // the usual case: no view to make
    for (let at = 0; at < chunk.length; at += PIECE_BYTES) {
      this.pushPiece(chunk.subarray(at, Math.min(chunk.length, at + PIECE_BYTES)));
    }
  }

  end(): SseStats {
    if (this.skip === undefined) {
      // A pending CR may already be a complete blank line (it only waits for a possible LF):
      // settle it first, so an event it ends counts as terminated.
      if (this.lastByte === CR) this.parser.feed('\n');
      this.atEof = true;
      this.parser.feed(this.text.flush() + '\n\n');
    } else {
      this.unterminated = true;
    }
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

  private pushPiece(piece: Uint8Array): void {
    if (piece.length === 0) return;
    let from = 0;
    if (this.skip !== undefined) {
      const after = this.skip.find(piece, 0);
      if (after < 0) return this.remember(piece);
      this.resume();
      from = after;
    }
    if (from < piece.length) this.feed(piece, from);
    this.remember(piece);
  }

  private feed(piece: Uint8Array, from: number): void {
    const rest = from === 0 ? piece : piece.subarray(from);
    this.bytesSinceEvent += rest.length;
    this.parser.feed(this.text.decode(rest));
    if (this.overflowed) this.startSkipping(rest, from === 0 ? this.lastByte : (piece[from - 1] as number));
  }

  private dispatch(message: { event?: string | undefined; id?: string | undefined; data: string }): void {
    this.bytesSinceEvent = 0;
    if (this.atEof) this.unterminated = true;
    // Completed within one piece, so the parser's own cap did not see it in full.
    if (message.data.length > this.opts.maxEventBytes) {
      this.oversizeEvents++;
      return;
    }
    if (!this.atEof) {
      this.events++;
      // The parser's own object: no copy per event. It always sets `id` and `event` (maybe to
      // undefined), which its type leaves optional.
      this.opts.onEvent(message as SseEvent);
      return;
    }
    this.opts.onEvent({ event: message.event, id: message.id, data: message.data, unterminated: true });
  }

  /**
   * The parser gave up on an event longer than the cap after consuming `piece`. Work out, from
   * the bytes, whether that event is still going on at the end of the piece.
   */
  private startSkipping(piece: Uint8Array, byteBefore: number): void {
    this.overflowed = false;
    this.oversizeEvents++;
    const finder = new BlankLineFinder(byteBefore);
    let at = 0;
    let endedAtBoundary = false;
    for (;;) {
      const after = finder.find(piece, at);
      if (after < 0) break;
      at = after;
      endedAtBoundary = after === piece.length;
      if (endedAtBoundary) break;
    }
    if (endedAtBoundary) this.resume();
    else this.skip = finder;
  }

  private resume(): void {
    this.skip = undefined;
    this.bytesSinceEvent = 0;
    this.parser.reset();
    this.text.reset(); // drop a multi-byte character cut by the skipped event
  }

  private remember(piece: Uint8Array): void {
    this.lastByte = piece[piece.length - 1] as number;
  }
}

/**
 * Finds the blank line that ends an SSE event, in raw bytes: a line terminator (CR, LF or
 * CRLF) right after another one. Jumps between terminators with memchr, so skipping a huge
 * single-line `data:` costs next to nothing.
 */
class BlankLineFinder {
  /** True when the last byte seen ended a line (nothing on the current line yet). */
  private atLineStart: boolean;
  /** True when the last byte seen was a CR, so an LF right after it belongs to it. */
  private lastWasCR: boolean;
  private nextCR = -1;
  private crPiece: Uint8Array | undefined;

  constructor(lastByteBefore: number) {
    this.atLineStart = lastByteBefore === LF || lastByteBefore === CR;
    this.lastWasCR = lastByteBefore === CR;
  }

  /** Index just after the blank line, or -1 when `buf` holds none from `from` on. */
  find(buf: Uint8Array, from: number): number {
    let at = from;
    while (at < buf.length) {
      const p = this.nextTerminator(buf, at);
      if (p < 0) {
        this.atLineStart = false;
        this.lastWasCR = false;
        return -1;
      }
      if (p > at) {
        this.atLineStart = false;
        this.lastWasCR = false;
      }
      const isCR = buf[p] === CR;
      at = p + 1;
      if (!isCR && this.lastWasCR) {
        this.lastWasCR = false; // the LF of a CRLF
        continue;
      }
      if (this.atLineStart) {
        this.lastWasCR = isCR;
        return at;
      }
      this.atLineStart = true;
      this.lastWasCR = isCR;
    }
    return -1;
  }

  private nextTerminator(buf: Uint8Array, from: number): number {
    const lf = indexOfByte(buf, LF, from);
    // Remember where the next CR is, so LF-only streams do not rescan the piece for CR each line.
    if (this.crPiece !== buf || (this.nextCR >= 0 && this.nextCR < from)) {
      this.crPiece = buf;
      this.nextCR = indexOfByte(buf, CR, from);
    }
    if (this.nextCR < 0) return lf;
    return lf < 0 ? this.nextCR : Math.min(lf, this.nextCR);
  }
}
