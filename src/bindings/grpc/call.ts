/**
 * One gRPC call at the gateway: Node's HTTP/2 compatibility request and response
 * (`Http2ServerRequest` / `Http2ServerResponse`) behind the pipeline's binding-neutral call
 * (src/exchange/call.ts), and the exchange record every binding shares. The relay, the rescue's
 * answers and the status answers of this binding write to `res` directly.
 */
import type { Http2ServerRequest, Http2ServerResponse } from 'node:http2';
import { NodeCall } from '../../pipeline/node-call.js';
import type { Exchange } from '../../exchange/exchange.js';

export class GrpcClientCall extends NodeCall<Http2ServerRequest, Http2ServerResponse> {
  readonly transport = 'grpc' as const;
  /** The header fields without pseudo-headers, as the agent's metadata is built from. */
  readonly rawHeaders: readonly string[];

  constructor(req: Http2ServerRequest, res: Http2ServerResponse) {
    super(req, res);
    const raw: string[] = [];
    for (let i = 0; i < req.rawHeaders.length; i += 2) {
      if (!req.rawHeaders[i]!.startsWith(':')) raw.push(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
    }
    this.rawHeaders = raw;
  }

  get method(): string {
    return this.req.method;
  }
  get target(): string {
    return this.req.url;
  }
  get closed(): boolean {
    return this.res.stream.destroyed || this.res.stream.closed;
  }
}

/** A gRPC call and its exchange, as the relay and the rescue take them. */
export interface GrpcCall {
  readonly req: Http2ServerRequest;
  readonly res: Http2ServerResponse;
  readonly exchange: Exchange;
}
