/**
 * One gRPC call at the gateway: Node's HTTP/2 compatibility request and response
 * (`Http2ServerRequest` / `Http2ServerResponse`) behind the pipeline's binding-neutral call
 * (src/exchange/call.ts), and the exchange record every binding shares. The relay, the rescue's
 * answers and the status answers of this binding write to `res` directly.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Http2ServerRequest, Http2ServerResponse } from 'node:http2';
import type { Readable } from 'node:stream';
import type { TLSSocket } from 'node:tls';
import type { ClientCall } from '../../exchange/call.js';
import type { Exchange } from '../../exchange/exchange.js';

export class GrpcClientCall implements ClientCall {
  readonly transport = 'grpc' as const;
  /** The header fields without pseudo-headers, as the agent's metadata is built from. */
  readonly rawHeaders: readonly string[];

  constructor(
    readonly req: Http2ServerRequest,
    readonly res: Http2ServerResponse,
  ) {
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
  get headers(): IncomingHttpHeaders {
    return this.req.headers;
  }
  get remoteAddress(): string | undefined {
    return this.req.socket.remoteAddress;
  }
  get encrypted(): boolean {
    return (this.req.socket as TLSSocket).encrypted === true;
  }
  get body(): Readable {
    return this.req;
  }
  get requestComplete(): boolean {
    return this.req.complete;
  }
  get answerStarted(): boolean {
    return this.res.headersSent;
  }
  get answerStatus(): number {
    return this.res.headersSent ? this.res.statusCode : 0;
  }
  get answerEnded(): boolean {
    return this.res.writableFinished;
  }
  get closed(): boolean {
    return this.res.stream.destroyed || this.res.stream.closed;
  }
  onClose(listener: () => void): void {
    this.res.on('close', listener);
  }
  offClose(listener: () => void): void {
    this.res.off('close', listener);
  }
  destroy(error?: Error): void {
    this.res.destroy(error);
  }
}

/** A gRPC call and its exchange, as the relay and the rescue take them. */
export interface GrpcCall {
  readonly req: Http2ServerRequest;
  readonly res: Http2ServerResponse;
  readonly exchange: Exchange;
}
