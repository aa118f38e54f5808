/**
 * What node:http's request and response and Node's HTTP/2 compatibility request and response
 * have in common ("Compatibility API", Node docs), as the one base of both bindings' calls
 * (src/bindings/http/http-call.ts, src/bindings/grpc/call.ts): each adds only what differs (its
 * transport, method, target, header list and when its stream counts as closed).
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import type { TLSSocket } from 'node:tls';
import type { ClientCall, Transport } from '../exchange/call.js';

/** The request side both Node APIs share. */
export interface NodeRequest extends Readable {
  readonly headers: IncomingHttpHeaders;
  readonly complete: boolean;
  readonly socket: { readonly remoteAddress?: string | undefined };
}

/** The response side both Node APIs share. */
export interface NodeResponse {
  readonly headersSent: boolean;
  readonly statusCode: number;
  readonly writableFinished: boolean;
  on(event: 'close', listener: () => void): unknown;
  off(event: 'close', listener: () => void): unknown;
  destroy(error?: Error): unknown;
}

export abstract class NodeCall<Req extends NodeRequest, Res extends NodeResponse> implements ClientCall {
  abstract readonly transport: Transport;
  abstract readonly method: string;
  abstract readonly target: string;
  abstract readonly rawHeaders: readonly string[];
  abstract readonly closed: boolean;

  constructor(
    readonly req: Req,
    readonly res: Res,
  ) {}

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
