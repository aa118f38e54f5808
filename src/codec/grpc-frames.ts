/**
 * gRPC length-prefixed messages ("gRPC over HTTP/2", grpc/grpc doc/PROTOCOL-HTTP2.md,
 * Length-Prefixed-Message): 1 byte compressed flag, 4 bytes big-endian message length, the
 * message. Pure and incremental (principle 3): `push` the body chunk by chunk, messages are
 * handed over as they complete. Bounded (principle 6): at most one message of up to
 * `maxMessageBytes` plus the 5-byte prefix is held; a longer message is skipped without being
 * held and counted. A message that lies whole inside one chunk is a `subarray` of it (no copy),
 * valid only during the `onMessage` call.
 */

export const GRPC_PREFIX_BYTES = 5;

export type OnGrpcMessage = (message: Uint8Array, compressed: boolean) => void;

export class GrpcFrameReader {
  /** Messages handed to `onMessage`. */
  messages = 0;
  /** Messages longer than `maxMessageBytes`, skipped. */
  skipped = 0;
  /** Body bytes pushed. */
  bytes = 0;
  private readonly prefix = new Uint8Array(GRPC_PREFIX_BYTES);
  private prefixFill = 0;
  /** Length of the message in progress, once its prefix is read. */
  private length = -1;
  private compressed = false;
  /** The message in progress when it spans chunks (undefined while skipping or between messages). */
  private held: Uint8Array | undefined = undefined;
  private heldFill = 0;
  /** Bytes of an oversized message still to skip. */
  private skipLeft = 0;

  constructor(private readonly maxMessageBytes: number) {}

  /** Bytes held right now: a partial prefix, or a partial message. */
  get heldBytes(): number {
    return this.held !== undefined ? this.heldFill : this.prefixFill;
  }

  /** The body so far ended inside a message (or its prefix). */
  get midMessage(): boolean {
    return this.prefixFill > 0 || this.length >= 0;
  }

  push(chunk: Uint8Array, onMessage: OnGrpcMessage): void {
    this.bytes += chunk.length;
    let at = 0;
    while (at < chunk.length) {
      if (this.length < 0) at = this.readPrefix(chunk, at);
      else if (this.skipLeft > 0) at = this.skip(chunk, at);
      else at = this.readMessage(chunk, at, onMessage);
      if (this.length === 0) this.deliver(new Uint8Array(0), onMessage);
    }
  }

  private readPrefix(chunk: Uint8Array, at: number): number {
    const { prefix } = this;
    while (at < chunk.length && this.prefixFill < GRPC_PREFIX_BYTES) prefix[this.prefixFill++] = chunk[at++]!;
    if (this.prefixFill < GRPC_PREFIX_BYTES) return at;
    this.prefixFill = 0;
    this.compressed = prefix[0] !== 0;
    // `>>> 0`: a length with the top bit set stays positive.
    this.length = ((prefix[1]! << 24) | (prefix[2]! << 16) | (prefix[3]! << 8) | prefix[4]!) >>> 0;
    if (this.length > this.maxMessageBytes) {
      this.skipped++;
      this.skipLeft = this.length;
    }
    return at;
  }

  private skip(chunk: Uint8Array, at: number): number {
    const take = Math.min(this.skipLeft, chunk.length - at);
    this.skipLeft -= take;
    if (this.skipLeft === 0) this.length = -1;
    return at + take;
  }

  private readMessage(chunk: Uint8Array, at: number, onMessage: OnGrpcMessage): number {
    const { length } = this;
    if (this.held === undefined && chunk.length - at >= length) {
      this.deliver(chunk.subarray(at, at + length), onMessage);
      return at + length;
    }
    this.held ??= new Uint8Array(length);
    const take = Math.min(length - this.heldFill, chunk.length - at);
    this.held.set(chunk.subarray(at, at + take), this.heldFill);
    this.heldFill += take;
    if (this.heldFill === length) {
      const message = this.held;
      this.held = undefined;
      this.heldFill = 0;
      this.deliver(message, onMessage);
    }
    return at + take;
  }

  private deliver(message: Uint8Array, onMessage: OnGrpcMessage): void {
    this.length = -1;
    this.messages++;
    onMessage(message, this.compressed);
  }
}

/** One uncompressed length-prefixed message. */
export function encodeGrpcFrame(message: Uint8Array): Uint8Array {
  const frame = new Uint8Array(GRPC_PREFIX_BYTES + message.length);
  const n = message.length;
  frame[1] = (n >>> 24) & 0xff;
  frame[2] = (n >>> 16) & 0xff;
  frame[3] = (n >>> 8) & 0xff;
  frame[4] = n & 0xff;
  frame.set(message, GRPC_PREFIX_BYTES);
  return frame;
}
