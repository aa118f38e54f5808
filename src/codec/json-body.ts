/**
 * Reads selected fields of a JSON body that arrives in chunks, without ever holding more than
 * `PARSE_BUFFER_BYTES` of it, and without reading past `maxBytes`.
 *
 * Strategy, measured with test/codec/json-bench.ts (µs per body, same fields extracted; the
 * machine is shared, so read ratios rather than absolutes):
 *
 *   body                                    JSON.parse   our scanner   @streamparser/json
 *   task 1.4 KiB, 1 chunk                        18–50        30–107          165–1146
 *   task 16 KiB (one 15 KB string)               41–76        42–49           303–732
 *   ListTasks page 64 KiB, 16 KiB chunks          702          289              4212
 *   ListTasks page 1 MiB, 64 KiB chunks         10594         4715             81212
 *   task 4 MiB (one long string), 64 KiB       17476–33125    265–935          40800–51757
 *
 * Most A2A bodies are a few KiB, where one `JSON.parse` at the end is about twice as cheap as
 * scanning; from ~16 KiB on the scanner wins, and by far on long strings (it jumps over them
 * with memchr). So: buffer up to 16 KiB and `JSON.parse` at `end()`; past that, hand the
 * buffered bytes to the streaming scanner (json-scan.ts), which holds no body bytes and reads on
 * up to `maxBytes`. The fields we want sit near the start (ids, state, kind), so they are found
 * in huge bodies too; what lies beyond the cap is reported as `partial`, never guessed.
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
  readonly fields: JsonFields;
  /** Body bytes pushed, including any beyond the cap. */
  readonly bytes: number;
  /** How the body was read: one `JSON.parse`, or the streaming scanner. */
  readonly via: 'none' | 'parse' | 'scan';
}

export interface JsonBodyReader {
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
  const bufferCap = Math.min(opts.maxBytes, opts.parseBufferBytes ?? PARSE_BUFFER_BYTES);
  let buffer: Uint8Array | undefined;
  let buffered = 0;
  let total = 0;
  let scanner: JsonScanner | undefined;

  function append(chunk: Uint8Array): void {
    const needed = buffered + chunk.length;
    if (buffer === undefined || needed > buffer.length) {
      const grown = new Uint8Array(Math.min(bufferCap, Math.max(needed, 2 * (buffer?.length ?? 0))));
      if (buffer !== undefined) grown.set(buffer.subarray(0, buffered));
      buffer = grown;
    }
    buffer.set(chunk, buffered);
    buffered = needed;
  }

  function scannerOver(bytes: Uint8Array | undefined): JsonScanner {
    const created = createJsonScanner(plan, { maxScanBytes: opts.maxBytes });
    if (bytes !== undefined) created.push(bytes);
    return created;
  }

  return {
    push(chunk) {
      total += chunk.length;
      if (scanner !== undefined) return scanner.push(chunk);
      if (buffered + chunk.length <= bufferCap) return append(chunk);
      scanner = scannerOver(buffer?.subarray(0, buffered));
      buffer = undefined;
      buffered = 0;
      scanner.push(chunk);
    },

    end(endOpts = {}) {
      if (scanner !== undefined) {
        const { status, fields } = scanner.end(endOpts);
        return { status, fields, bytes: total, via: 'scan' };
      }
      if (buffer === undefined || buffered === 0) return { status: 'empty', fields: EMPTY_FIELDS, bytes: 0, via: 'none' };
      const bytes = buffer.subarray(0, buffered);
      buffer = undefined;
      try {
        return { status: 'complete', fields: fieldsFromValue(JSON.parse(utf8.decode(bytes))), bytes: total, via: 'parse' };
      } catch {
        // Salvage what precedes the error (e.g. `"jsonrpc"` and `"method"` of a cut request).
        const { status, fields } = scannerOver(bytes).end(endOpts);
        if (status !== 'complete') return { status, fields, bytes: total, via: 'parse' };
        // The scanner is lenient inside skipped values; JSON.parse has the last word.
        return { status: 'malformed', fields: { complete: false, get: fields.get }, bytes: total, via: 'parse' };
      }
    },

    get heldBytes() {
      return scanner?.heldBytes ?? buffer?.length ?? 0;
    },
  };
}
