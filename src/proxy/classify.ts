/**
 * Classifies the request once (principle 4): binding, version, operation, ids, blocking — from
 * the head and the body bytes as they are read. Every later stage reads these facts: the error
 * context, the extended-card rewrite, the timeout rescue, inspection. A decoder failure is
 * kept (inspection reports it as a finding) and never reaches the traffic.
 */
import type { IncomingMessage } from 'node:http';
import { createRequestDecoder, type RequestDecoder, type RequestFacts } from '../a2a/request.js';

export class RequestClassification {
  private readonly decoder: RequestDecoder | undefined;
  private facts: RequestFacts | undefined;
  private ended = false;
  /** The first decoder failure, if any. */
  failure: string | undefined;

  constructor(req: IncomingMessage, pathAndQuery: string, maxBytes: number) {
    const q = pathAndQuery.indexOf('?');
    const head = {
      method: req.method ?? 'GET',
      path: q === -1 ? pathAndQuery : pathAndQuery.slice(0, q),
      query: q === -1 ? '' : pathAndQuery.slice(q + 1),
      // The decoder reads single-valued A2A headers; Node joins repeated ones except set-cookie.
      headers: req.headers as Record<string, string | undefined>,
    };
    this.decoder = this.guard(() => createRequestDecoder(head, { maxBytes }));
  }

  push(chunk: Buffer): void {
    if (!this.ended && this.decoder) this.guard(() => this.decoder!.push(chunk));
  }

  /** The facts; the first call ends the body (later bytes, if any, are not classified). */
  end(): RequestFacts | undefined {
    if (!this.ended) {
      this.ended = true;
      if (this.decoder) this.facts = this.guard(() => this.decoder!.end());
    }
    return this.facts;
  }

  private guard<T>(step: () => T): T | undefined {
    if (this.failure !== undefined) return undefined;
    try {
      return step();
    } catch (err) {
      this.failure = (err as Error)?.message ?? String(err);
      return undefined;
    }
  }
}
