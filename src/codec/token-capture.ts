/**
 * Keeps the raw bytes of one JSON token (a key or a wanted scalar) across chunk boundaries, up
 * to a limit, in one reused buffer: the only body bytes the streaming scanner ever holds.
 */
import { ByteCarry } from './byte-carry.js';

const utf8 = new TextDecoder();

export class TokenCapture {
  private readonly kept = new ByteCarry();
  /** Whether the current token is being kept at all. */
  active = false;
  /** The token was longer than the limit; what is kept is its start. */
  overflow = false;

  begin(active: boolean): void {
    this.active = active;
    this.kept.clear();
    this.overflow = false;
  }

  append(buf: Uint8Array, from: number, to: number, limit: number): void {
    if (!this.active) return;
    const take = Math.min(limit - this.kept.length, to - from);
    if (take < to - from) this.overflow = true;
    if (take > 0) this.kept.append(buf, from, from + take);
  }

  /**
   * The token as text; with `unescape`, JSON string escapes resolved. `undefined` when nothing is
   * kept, or when an escape sequence was cut by the limit.
   */
  text(unescape: boolean): string | undefined {
    if (!this.active) return undefined;
    const raw = utf8.decode(this.kept.bytes.subarray(0, this.kept.length));
    if (!unescape || !raw.includes('\\')) return raw;
    try {
      return JSON.parse(`"${raw}"`) as string;
    } catch {
      return undefined;
    }
  }

  get heldBytes(): number {
    return this.kept.capacity;
  }

  release(): void {
    this.kept.release();
    this.active = false;
  }
}
