/**
 * One client call at the gateway, as the pipeline sees it whatever the binding: the request's
 * head and body, and where its answer stands (docs/ARCHITECTURE.md, "One pipeline, two
 * bindings"). The HTTP binding wraps node:http's request and response
 * (src/bindings/http/http-call.ts), the gRPC binding Node's HTTP/2 compatibility request and
 * response (src/bindings/grpc/grpc-call.ts). Stages, observers and access control read only
 * this; what only one binding has (its response object, its relay) stays in that binding.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';

/** The transport a call came in on: HTTP/1.1 (JSON-RPC and HTTP+JSON) or gRPC over HTTP/2. */
export type Transport = 'http' | 'grpc';

/** What the gateway reads of a request's head. */
export interface CallHead {
  /** The request method (`POST` for every gRPC call). */
  readonly method: string;
  /** The request target as the client sent it (path and query; gRPC: `/{service}/{rpc}`). */
  readonly target: string;
  /** Header fields by lower-case name, repeated ones joined as node:http joins them. */
  readonly headers: IncomingHttpHeaders;
  /** Header fields as sent, name and value alternating; no HTTP/2 pseudo-headers. */
  readonly rawHeaders: readonly string[];
  /** The peer's address as the socket reports it. */
  readonly remoteAddress: string | undefined;
  /** The connection is TLS. */
  readonly encrypted: boolean;
}

export interface ClientCall extends CallHead {
  readonly transport: Transport;
  /** The request body as it arrives. */
  readonly body: Readable;
  /** The client has sent its whole request. */
  readonly requestComplete: boolean;
  /** The answer's status line and headers have gone out. */
  readonly answerStarted: boolean;
  /** The status sent (0 before `answerStarted`). */
  readonly answerStatus: number;
  /** The whole answer has been handed to the connection. */
  readonly answerEnded: boolean;
  /** The call is over on the client's side: answered, reset or its connection gone. */
  readonly closed: boolean;
  /** `listener` runs once when the call closes (the client left, or the answer was sent). */
  onClose(listener: () => void): void;
  offClose(listener: () => void): void;
  /** Ends the call now (a graceful shutdown past its grace period, a cut answer). */
  destroy(error?: Error): void;
}
