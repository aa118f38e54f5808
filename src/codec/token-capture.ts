/**
 * Keeps the raw bytes of one JSON token (a key or a wanted scalar) across chunk boundaries, up
 * to a limit, in one reused buffer: the only body bytes the streaming scanner ever holds.
 */
const INITIAL_BYTES = 256;
const utf8 = new TextDecoder();

export class TokenCapture {
  private buffer: Uint8Array | undefined;
  private length = 0;
  /** Whether the current token is being kept at all. */
  active = false;
  /** The token was longer than the limit; what is kept is its start. */
  overflow = false;

  begin(active: boolean): void {
    this.active = active;
    this.length = 0;
    this.overflow = false;
  }

  append(buf: Uint8Array, from: number, to: number, limit: number): void {
    if (!this.active) return;
    const take = Math.min(limit - this.length, to - from);
    if (take < to - from) this.overflow = true;
    if (take <= 0) return;
    let target = this.buffer ?? new Uint8Array(INITIAL_BYTES);
    if (this.length + take > target.length) {
      const grown = new Uint8Array(Math.max(target.length * 2, this.length + take));
      grown.set(target.subarray(0, this.length));
      target = grown;
    }
    target.set(buf.subarray(from, from + take), this.length);
    this.buffer = target;
    this.length += take;
  }

  /**
   * The token as text; with `unescape`, JSON string escapes resolved. `undefined` when nothing is
   * kept, or when an escape sequence was cut by the limit.
   */
  text(unescape: boolean): string | undefined {
    if (!this.active) return undefined;
    const raw = utf8.decode((this.buffer ?? new Uint8Array(0)).subarray(0, this.length));
    if (!unescape || !raw.includes('\\')) return raw;
    try {
      return JSON.parse(`"${raw}"`) as string;
    } catch {
      return undefined;
    }
  }

  get heldBytes(): number {
    return this.buffer?.byteLength ?? 0;
  }

  release(): void {
    this.buffer = undefined;
    this.active = false;
  }
}
