/**
 * The gateway's own answers on the gRPC binding: a trailers-only response
 * (gRPC over HTTP/2: HEADERS with END_STREAM carrying `grpc-status`) when nothing has been sent,
 * or trailers after what was relayed. The status comes from the GatewayError's `rpcStatus`
 * (src/errors/gateway-error.ts, one table for every binding); `grpc-status-details-bin` carries a
 * google.rpc.Status with an ErrorInfo (domain `a2a-gateway`), as A2A asks of errors (§10.6). The
 * protocol's own errors the gateway answers (TaskNotFound under task ownership,
 * src/errors/a2a-error.ts) get the status and ErrorInfo an A2A agent gives them, and the answer
 * is framed as the SDK's gRPC server (@grpc/grpc-js) frames it — content type
 * `application/grpc+proto`, `grpc-message` percent-encoded as grpc-js does (`encodeURI`), on a
 * server-streaming rpc the headers first and the status in trailers, no ErrorInfo metadata — so
 * a task the caller does not own answers byte for byte as one that does not exist.
 */
import { constants, type Http2ServerResponse, type ServerHttp2Stream } from 'node:http2';
import { encodeStatusDetails, grpcCodeOf, percentEncodeGrpcMessage } from '../a2a/grpc/status.js';
import { A2AError } from './a2a-error.js';
import { GatewayError } from './gateway-error.js';

export interface GrpcFailure {
  readonly code: number;
  readonly message: string;
  readonly reason: string;
  readonly domain: string;
  readonly metadata: Record<string, string>;
  /** Headers, then the status in trailers (a server-streaming rpc as grpc-js answers it); default trailers-only. */
  readonly headersFirst?: boolean;
}

/** The server-streaming rpcs of both versions (docs/proto: `returns (stream …)`). */
const STREAMING_RPC = /^\/(lf\.a2a|a2a)\.v1\.A2AService\/(SendStreamingMessage|SubscribeToTask|TaskSubscription)$/;

/** What grpc-js puts in the header block of a streaming answer before its first message. */
const STREAM_HEADERS = {
  'content-type': 'application/grpc+proto',
  'grpc-accept-encoding': 'identity,deflate,gzip',
  'grpc-encoding': 'identity',
} as const;

/** What `err` answers as on the call to `path`; anything else is INTERNAL. */
export function grpcFailureOf(err: unknown, path?: string): GrpcFailure {
  if (err instanceof GatewayError) {
    const { rpcStatus: status, message, reason, metadata } = err;
    return { code: grpcCodeOf(status), message, reason, domain: 'a2a-gateway', metadata };
  }
  if (err instanceof A2AError) {
    // The status of its row in the spec's table (src/a2a/error-table.ts, §5.4).
    const code = grpcCodeOf(err.row.grpc);
    const domain = err.domain;
    // The SDK agents' TaskNotFound ErrorInfo carries no metadata (the id is in the message).
    const metadata = err.kind === 'TaskNotFound' ? {} : err.metadata;
    const headersFirst = path !== undefined && STREAMING_RPC.test(path);
    return { code, message: err.message, reason: err.reason, domain, metadata, headersFirst };
  }
  return {
    code: grpcCodeOf('INTERNAL'),
    message: 'the gateway could not process the request',
    reason: 'INTERNAL',
    domain: 'a2a-gateway',
    metadata: {},
  };
}

/** The status trailers for `failure` (also the whole answer, trailers-only). */
export function statusTrailers(failure: GrpcFailure): Record<string, string> {
  const details = encodeStatusDetails(failure);
  return {
    'grpc-status': String(failure.code),
    'grpc-message': encodeMessage(failure.message),
    'grpc-status-details-bin': Buffer.from(details).toString('base64'),
  };
}

/** `grpc-message` as grpc-js writes it (`encodeURI`); text it cannot take (a lone surrogate) as the spec minimum. */
function encodeMessage(message: string): string {
  try {
    return encodeURI(message);
  } catch {
    return percentEncodeGrpcMessage(message);
  }
}

/**
 * Answers `failure` on `res`: trailers-only before the headers, else as the trailers of what
 * was relayed. A client still sending (a refusal before its message was read whole) then gets
 * RST_STREAM NO_ERROR, as gRPC over HTTP/2 asks of a server that is done first: the stream is
 * freed now, not when the client chooses to end it. Returns the trailers sent (the exchange
 * record reads them), or undefined when the stream was already gone.
 */
export function sendGrpcFailure(res: Http2ServerResponse, failure: GrpcFailure): Record<string, string> | undefined {
  const stream = res.stream;
  if (stream.destroyed || stream.closed || res.writableEnded) return undefined;
  const trailers = statusTrailers(failure);
  if (!stream.headersSent && failure.headersFirst) {
    res.writeHead(200, STREAM_HEADERS);
    res.addTrailers(trailers);
    res.end();
  } else if (!stream.headersSent) {
    stream.respond(
      { ':status': 200, 'content-type': STREAM_HEADERS['content-type'], ...trailers },
      { endStream: true },
    );
  } else {
    res.addTrailers(trailers);
    res.end();
  }
  setImmediate(() => resetIfUnread(stream));
  return trailers;
}

/** RST_STREAM NO_ERROR once the answer is out, when the client has not ended its side. */
function resetIfUnread(stream: ServerHttp2Stream): void {
  if (stream.destroyed || stream.closed) return;
  const state = stream.state.state;
  if (state === constants.NGHTTP2_STREAM_STATE_CLOSED || state === constants.NGHTTP2_STREAM_STATE_HALF_CLOSED_REMOTE) {
    return;
  }
  stream.close(constants.NGHTTP2_NO_ERROR);
}
