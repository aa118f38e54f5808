/**
 * A growable run of bytes, for what a decoder must keep across chunk boundaries (a cut line, a
 * cut token). Starts empty and allocates on first use, so idle streams hold nothing; a buffer
 * grown past `KEEP_BYTES` is let go when cleared, so one large event does not stay with its stream.
 */
const INITIAL_BYTES = 256;
const KEEP_BYTES = 16 * 1024;
const NONE = new Uint8Array(0);

export class ByteCarry {
  /** The buffer; bytes `[0, length)` are held. Replaced when it grows. */
  bytes: Uint8Array = NONE;
  length = 0;

  append(src: Uint8Array, from: number, to: number): void {
    const take = to - from;
    if (take <= 0) return;
    this.reserve(take);
    this.bytes.set(src.subarray(from, to), this.length);
    this.length += take;
  }

  push(byte: number): void {
    this.reserve(1);
    this.bytes[this.length++] = byte;
  }

  /** Hands the buffer over (bytes `[0, length)` are the held ones) and starts empty again: no copy. */
  take(): Uint8Array {
    const { bytes } = this;
    this.release();
    return bytes;
  }

  clear(): void {
    this.length = 0;
    if (this.bytes.length > KEEP_BYTES) this.bytes = NONE;
  }

  /** The bytes this holds, in memory. */
  get capacity(): number {
    return this.bytes.byteLength;
  }

  release(): void {
    this.bytes = NONE;
    this.length = 0;
  }

  private reserve(more: number): void {
    const need = this.length + more;
    if (need <= this.bytes.length) return;
    const grown = new Uint8Array(Math.max(INITIAL_BYTES, this.bytes.length * 2, need));
    grown.set(this.bytes.subarray(0, this.length));
    this.bytes = grown;
  }
}

/**
 * The pieces of one run of bytes that came in several chunks, kept as views of those chunks
 * (which their owner does not change; short pieces are copied) and joined once, at the end: one
 * copy of a 1 MB line instead of a buffer regrown a dozen times (bench scenario 5's large events).
 * A view keeps its whole chunk alive, so the memory held is `length` plus at most the rest of the
 * first piece's chunk (a socket read: ≤ 64 KiB), as the old decoder's bound had a 64 KiB piece.
 */
/** Pieces shorter than this are copied rather than kept as views. */
const COPY_BELOW = 4 * 1024;

export class ByteParts {
  private parts: Uint8Array[] = [];
  length = 0;

  append(src: Uint8Array, from: number, to: number): void {
    if (to <= from) return;
    // A short piece is copied, so it does not keep a whole chunk alive (a quiet stream cut mid-line).
    this.parts.push(to - from < COPY_BELOW ? Uint8Array.prototype.slice.call(src, from, to) : src.subarray(from, to));
    this.length += to - from;
  }

  /** The pieces in one new buffer of their own; starts empty again. */
  join(): Uint8Array {
    const out = new Uint8Array(this.length);
    let at = 0;
    for (const part of this.parts) {
      out.set(part, at);
      at += part.length;
    }
    this.clear();
    return out;
  }

  clear(): void {
    if (this.parts.length > 0) this.parts = [];
    this.length = 0;
  }
}
