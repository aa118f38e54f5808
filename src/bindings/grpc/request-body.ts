/**
 * Reads a gRPC request body whole, within bounds. Every A2A rpc takes one request message (the
 * streaming ones stream their answer only: docs/proto/a2a-v1.0.0.proto `A2AService`), so the
 * body is one length-prefixed message, read before the call goes on — the gateway must know the
 * operation and ids to route, check access and rescue it. An HTTP/2 request announces no length
 * (gRPC sends no content-length), so the cap is applied as bytes arrive: past
 * `limits.grpc.messageBytes` (plus the 5-byte prefix) the call is refused RESOURCE_EXHAUSTED,
 * and a body that goes quiet for `limits.bodyIdle` DEADLINE_EXCEEDED.
 */
import type { Http2ServerRequest } from 'node:http2';
import { GatewayError } from '../../errors/gateway-error.js';
import { BodyWatch, type BodyLimits, type BodyRefusals } from '../../pipeline/request-body.js';
import { GRPC_PREFIX_BYTES } from '../../codec/grpc-frames.js';

/** gRPC speaks of the request message, and its limit excludes the 5-byte prefix. */
const MESSAGE_REFUSALS: BodyRefusals = {
  tooLarge: (maxBytes) =>
    new GatewayError('BODY_TOO_LARGE', `the request message is larger than ${maxBytes - GRPC_PREFIX_BYTES} bytes`),
  idle: (idleMs) => new GatewayError('REQUEST_TIMEOUT', `the request message went quiet for ${idleMs} ms`),
};

export function readGrpcBody(
  req: Http2ServerRequest,
  limits: BodyLimits,
  onChunk: (chunk: Buffer) => void,
): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    const settle = (err?: Error) => {
      watch.stop();
      req.off('data', onData).off('end', onEnd).off('error', onError).off('aborted', onAborted).off('close', onAborted);
      if (err) {
        // The rest is discarded, not held: the refusal's RST_STREAM ends the stream, and a paused
        // stream with data in Node's buffers keeps the client's whole connection from closing
        // (the socket's close never comes; a graceful shutdown waits on it).
        req.resume();
        reject(err);
      } else resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, watch.bytes));
    };
    const watch = new BodyWatch(limits, settle, 0, MESSAGE_REFUSALS);
    const onData = (chunk: Buffer) => {
      if (!watch.add(chunk)) return;
      chunks.push(chunk);
      onChunk(chunk);
    };
    const onEnd = () => settle();
    const onError = (err: Error) => settle(err);
    const onAborted = () => settle(new Error('client went away'));
    // A stream closed before its message ended (reset, or its connection closed) is not read on.
    req.on('data', onData).on('end', onEnd).on('error', onError).on('aborted', onAborted).on('close', onAborted);
  });
}
