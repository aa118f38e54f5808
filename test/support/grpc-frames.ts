// Splits a gRPC message stream into its length-prefixed messages (gRPC over HTTP/2:
// 1 byte compressed-flag + 4 bytes big-endian length + message), refusing a partial one.
export interface GrpcFrame {
  compressed: boolean;
  message: Buffer;
}

/** The frames in the concatenation of `chunks`; throws if it does not end on a frame boundary. */
export function grpcFrames(chunks: Buffer[]): GrpcFrame[] {
  const all = Buffer.concat(chunks);
  const frames: GrpcFrame[] = [];
  let at = 0;
  while (at < all.length) {
    if (all.length - at < 5) throw new Error(`gRPC frames: ${all.length - at} bytes left, no room for a prefix`);
    const flag = all[at]!;
    if (flag > 1) throw new Error(`gRPC frames: compressed-flag ${flag} at offset ${at}`);
    const length = all.readUInt32BE(at + 1);
    const end = at + 5 + length;
    if (end > all.length)
      throw new Error(`gRPC frames: message at ${at} needs ${length} bytes, ${all.length - at - 5} left`);
    frames.push({ compressed: flag === 1, message: all.subarray(at + 5, end) });
    at = end;
  }
  return frames;
}
