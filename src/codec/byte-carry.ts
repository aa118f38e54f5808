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

  /** The held bytes in a buffer of their own. */
  copy(): Uint8Array {
    return this.bytes.slice(0, this.length);
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
