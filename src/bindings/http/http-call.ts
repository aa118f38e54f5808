/**
 * A call on the HTTP listener (JSON-RPC or HTTP+JSON over HTTP/1.1): node:http's request and
 * response behind the pipeline's binding-neutral call (src/exchange/call.ts). The relay and the
 * answers of this binding write to `res` directly; every other stage reads the call.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import type { TLSSocket } from 'node:tls';
import type { ClientCall } from '../../exchange/call.js';

export class HttpCall implements ClientCall {
  readonly transport = 'http' as const;

  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
  ) {}

  get method(): string {
    return this.req.method ?? 'GET';
  }
  get target(): string {
    return this.req.url ?? '/';
  }
  get headers(): IncomingHttpHeaders {
    return this.req.headers;
  }
  get rawHeaders(): readonly string[] {
    return this.req.rawHeaders;
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
    return this.res.destroyed || this.res.writableFinished;
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
