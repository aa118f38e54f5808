/**
 * Reads selected fields of a JSON body that arrives in chunks, without ever holding more than
 * `PARSE_BUFFER_BYTES` of it, and without reading past `maxBytes`.
 *
 * Strategy, measured with test/codec/json-bench.ts (µs per body, same fields extracted; the
 * machine is shared, so read ratios rather than absolutes; 2026-12-01, after the scanner matched
 * keys in place of decoding them, which halved its time on Task bodies):
 *
 *   body                                    JSON.parse   our scanner   @streamparser/json
 *   task 1.4 KiB, 1 chunk                          5.6           3.5                 58
 *   task 16 KiB (one 15 KB string)                  15           3.7                 91
 *   ListTasks page 64 KiB, 16 KiB chunks           163            52               1151
 *   ListTasks page 1 MiB, 64 KiB chunks           3441           945              18568
 *   task 4 MiB (one long string), 64 KiB          9397           155              10521
 *
 * That bench's JSON.parse column also pays a copy of the chunks and path lookups. As the
 * decoders use it (one chunk, direct property reads, src/a2a/unary.ts), `JSON.parse` costs ~1 µs
 * on a 250 B Message against ~2.8 µs for the scanner, and the two cost the same inside the
 * gateway on scenario 2's 10 KB Task (bench/ANALYSIS.md): so bodies up to 16 KiB are buffered
 * and parsed at `end()`, which validates all of them; past that, the buffered bytes go to the
 * streaming scanner (json-scan.ts), which holds no body bytes, jumps over long strings with
 * memchr and reads on up to `maxBytes`. The fields we want sit near the start (ids, state, kind),
 * so they are found in huge bodies too; what lies beyond the cap is reported as `partial`, never
 * guessed.
 *
 * The buffered chunks are kept by reference, not copied (a body in several chunks is joined once,
 * at `end()`): allocating and filling a `Uint8Array` per body took ~1.4 µs for a 1.4 KB body,
 * twice the cost of decoding it to text, and its backing store added GC work (`append` was 5 %
 * of the self time of a unary exchange in the CPU profile, plus GC). So a pushed chunk must not
 * be modified afterwards; the proxy never does (it forwards those very buffers and keeps them
 * itself until written).
 */
import { EMPTY_FIELDS, fieldsFromValue, type JsonFields } from './json-fields.js';
import { createJsonScanner, type JsonScanner, type ScanPlan } from './json-scan.js';

export type JsonBodyStatus = 'empty' | 'complete' | 'partial' | 'malformed';

export interface JsonBodyResult {
  /**
   * `complete`: the whole body was read and is valid JSON. `partial`: the body went past
   * `maxBytes` or was cut by the transport, so fields not found may exist after all.
   * `malformed`: not valid JSON (fields found before the error are still reported).
   */
  readonly status: JsonBodyStatus;
  /**
   * The body for readers (json-value.ts): what `JSON.parse` returned, or the skeleton of the
   * recorded paths when the body was scanned. `undefined` for an empty body.
   */
  readonly value: unknown;
  /** The same by path; `fields.complete` says whether absent paths are really absent. */
  readonly fields: JsonFields;
  /** Body bytes pushed, including any beyond the cap. */
  readonly bytes: number;
  /** How the body was read: one `JSON.parse`, or the streaming scanner. */
  readonly via: 'none' | 'parse' | 'scan';
}

export interface JsonBodyReader {
  /** The chunk is kept by reference until `end()` (bodies that fit the parse buffer): do not modify it afterwards. */
  push(chunk: Uint8Array): void;
  end(opts?: { truncated?: boolean }): JsonBodyResult;
  /** Body bytes held right now (parse buffer, or scanner capture buffer); for memory tests. */
  readonly heldBytes: number;
}

/** Bodies up to this size are buffered and parsed whole (see the table above). */
export const PARSE_BUFFER_BYTES = 16 * 1024;

const utf8 = new TextDecoder();

export interface JsonBodyOptions {
  /** Inspection cap: bytes read at most; the scanner stops there and reports `partial`. */
  readonly maxBytes: number;
  /** Bodies up to this size are parsed whole (default `PARSE_BUFFER_BYTES`; tests lower it). */
  readonly parseBufferBytes?: number;
}

export function createJsonBodyReader(plan: ScanPlan, opts: JsonBodyOptions): JsonBodyReader {
  return new BodyReader(plan, opts.maxBytes, Math.min(opts.maxBytes, opts.parseBufferBytes ?? PARSE_BUFFER_BYTES));
}

class BodyReader implements JsonBodyReader {
  /** The buffered chunks: the first one, then any others (most bodies arrive in one). */
  private first: Uint8Array | undefined = undefined;
  private more: Uint8Array[] | undefined = undefined;
  private buffered = 0;
  private total = 0;
  private scanner: JsonScanner | undefined = undefined;

  constructor(
    private readonly plan: ScanPlan,
    private readonly maxBytes: number,
    private readonly bufferCap: number,
  ) {}

  push(chunk: Uint8Array): void {
    this.total += chunk.length;
    if (this.scanner !== undefined) return this.scanner.push(chunk);
    if (this.buffered + chunk.length <= this.bufferCap) {
      if (chunk.length === 0) return;
      if (this.first === undefined) this.first = chunk;
      else (this.more ??= []).push(chunk);
      this.buffered += chunk.length;
      return;
    }
    const scanner = this.newScanner();
    if (this.first !== undefined) scanner.push(this.first);
    if (this.more !== undefined) for (const held of this.more) scanner.push(held);
    this.release();
    this.scanner = scanner;
    scanner.push(chunk);
  }

  end(endOpts: { truncated?: boolean } = {}): JsonBodyResult {
    if (this.scanner !== undefined) {
      const { status, fields } = this.scanner.end(endOpts);
      return { status, value: fields.toValue(), fields, bytes: this.total, via: 'scan' };
    }
    if (this.first === undefined)
      return { status: 'empty', value: undefined, fields: EMPTY_FIELDS, bytes: 0, via: 'none' };
    const bytes = this.more === undefined ? this.first : this.joined();
    this.release();
    let value: unknown;
    try {
      value = JSON.parse(utf8.decode(bytes));
    } catch {
      // Salvage what precedes the error (e.g. `"jsonrpc"` and `"method"` of a cut request).
      const scanner = this.newScanner();
      scanner.push(bytes);
      const { status, fields } = scanner.end(endOpts);
      if (status !== 'complete') return { status, value: fields.toValue(), fields, bytes: this.total, via: 'parse' };
      // The scanner is lenient inside skipped values; JSON.parse has the last word.
      return {
        status: 'malformed',
        value: fields.toValue(),
        fields: fields.withComplete(false),
        bytes: this.total,
        via: 'parse',
      };
    }
    return { status: 'complete', value, fields: fieldsFromValue(value), bytes: this.total, via: 'parse' };
  }

  get heldBytes(): number {
    return this.scanner?.heldBytes ?? this.buffered;
  }

  private newScanner(): JsonScanner {
    return createJsonScanner(this.plan, { maxScanBytes: this.maxBytes });
  }

  private joined(): Uint8Array {
    const out = new Uint8Array(this.buffered);
    out.set(this.first as Uint8Array);
    let at = (this.first as Uint8Array).length;
    for (const chunk of this.more ?? []) {
      out.set(chunk, at);
      at += chunk.length;
    }
    return out;
  }

  private release(): void {
    this.first = undefined;
    this.more = undefined;
    this.buffered = 0;
  }
}
