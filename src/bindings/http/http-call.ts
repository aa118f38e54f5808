/**
 * A call on the HTTP listener (JSON-RPC or HTTP+JSON over HTTP/1.1): node:http's request and
 * response behind the pipeline's binding-neutral call (src/exchange/call.ts). The relay and the
 * answers of this binding write to `res` directly; every other stage reads the call.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { NodeCall } from '../../pipeline/node-call.js';

export class HttpCall extends NodeCall<IncomingMessage, ServerResponse> {
  readonly transport = 'http' as const;

  get method(): string {
    return this.req.method ?? 'GET';
  }
  get target(): string {
    return this.req.url ?? '/';
  }
  get rawHeaders(): readonly string[] {
    return this.req.rawHeaders;
  }
  get closed(): boolean {
    return this.res.destroyed || this.res.writableFinished;
  }
}
