/**
 * A raw gRPC client for stream resume (node:http2, no gRPC library between, as
 * test/grpc/support/raw-grpc.ts): reads a server stream message by message, keeping each frame's
 * bytes as they came, and cancels it (RST_STREAM CANCEL) after `n` messages.
 */
import { constants, type ClientHttp2Session, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http2';
import { GrpcFrameReader, encodeGrpcFrame } from '../../../src/codec/grpc-frames.js';
import { frame, grpcHeaders } from '../../grpc/support/raw-grpc.js';

export interface CutStream {
  readonly headers: IncomingHttpHeaders;
  /** The frames of the whole messages read before the cut. */
  readonly frames: Buffer[];
}

/** Opens `path` with `body`, reads at least `n` whole messages, then cancels. */
export function readThenCancel(
  session: ClientHttp2Session,
  path: string,
  body: Uint8Array,
  n: number,
  headers: OutgoingHttpHeaders = {},
): Promise<CutStream> {
  return new Promise((resolve, reject) => {
    const stream = session.request(grpcHeaders(path, headers));
    const reader = new GrpcFrameReader(1 << 20);
    const frames: Buffer[] = [];
    let answerHeaders: IncomingHttpHeaders = {};
    const timer = setTimeout(() => reject(new Error(`deadline: ${n} messages not read within 10 s`)), 10_000);
    stream.on('response', (h) => (answerHeaders = h));
    stream.on('error', () => {}); // the cancel below
    stream.on('data', (chunk: Buffer) => {
      if (frames.length >= n) return;
      reader.push(chunk, (m) => frames.push(Buffer.from(encodeGrpcFrame(m))));
      if (frames.length < n) return;
      clearTimeout(timer);
      stream.close(constants.NGHTTP2_CANCEL);
      resolve({ headers: answerHeaders, frames });
    });
    stream.on('close', () => reject(new Error(`stream closed after ${frames.length} of ${n} messages`)));
    stream.end(frame(body));
  });
}
