/**
 * One unary gRPC call to an agent, read whole (bounded): what the timeout rescue needs to look
 * at an answer before it decides to pass it on or to wait (rescue-caller.ts). The answer's
 * bytes are kept as they came, so that what is passed on is the agent's own.
 */
import { constants, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http2';
import { GrpcFrameReader } from '../../codec/grpc-frames.js';
import { GatewayError } from '../../errors/gateway-error.js';
import { streamFailureCause, type GrpcChannel } from './channel.js';
import { grpcCodeOf } from '../../a2a/grpc/status.js';

export interface UnaryReply {
  readonly headers: IncomingHttpHeaders;
  /** The DATA chunks as they came. */
  readonly chunks: Buffer[];
  /** The one response message, when there was exactly one (uncompressed). */
  readonly message: Uint8Array | undefined;
  readonly trailers: IncomingHttpHeaders;
  /** `grpc-status` (from the trailers, or the headers of a trailers-only answer). */
  readonly status: number;
}

export function callUnary(
  channel: GrpcChannel,
  headers: OutgoingHttpHeaders,
  body: Uint8Array,
  maxBytes: number,
  signal: AbortSignal,
): Promise<UnaryReply> {
  return new Promise<UnaryReply>((resolve, reject) => {
    const stream = channel.request(headers);
    const frames = new GrpcFrameReader(maxBytes);
    const messages: Uint8Array[] = [];
    const chunks: Buffer[] = [];
    let head: IncomingHttpHeaders = {};
    let trailers: IncomingHttpHeaders | undefined;
    const abort = () => stream.close(constants.NGHTTP2_CANCEL);
    signal.addEventListener('abort', abort, { once: true });
    stream.on('response', (h, flags) => {
      head = h;
      if (flags & constants.NGHTTP2_FLAG_END_STREAM) trailers = h;
    });
    stream.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      frames.push(chunk, (message, compressed) => {
        if (!compressed) messages.push(message.slice());
      });
    });
    stream.on('trailers', (t) => (trailers = t));
    stream.on('error', (err) => reject(streamFailureCause(err)));
    stream.on('close', () => {
      signal.removeEventListener('abort', abort);
      if (signal.aborted) return reject(signal.reason ?? new Error('aborted'));
      if (!trailers)
        return reject(new GatewayError('UPSTREAM_RESET', "the agent's gRPC answer ended without its status"));
      const status = Number(trailers['grpc-status'] ?? grpcCodeOf('UNKNOWN'));
      resolve({ headers: head, chunks, message: messages.length === 1 ? messages[0] : undefined, trailers, status });
    });
    stream.end(body);
  });
}
