/**
 * Classifies the request once (principle 4): binding, version, operation, ids, blocking — from
 * the head and the body's start as the pipeline reads it (step 3). The facts land on the
 * exchange, and every later stage reads them: the error context, the extended-card rewrite, the
 * timeout rescue, inspection. A decoder failure is kept (inspection reports it as a finding) and
 * never reaches the traffic (principle 5).
 *
 * A body larger than the pipeline's read-ahead is classified from that start only (the facts say
 * `partial`): what A2A requests carry for routing and errors (JSON-RPC method and id, REST route)
 * comes first, and the rest of such a body (an inline file) streams past unread.
 */
import type { CallHead } from '../exchange/call.js';
import { createRequestDecoder, type RequestDecoder, type RequestFacts } from '../a2a/request.js';

export interface Classification {
  readonly facts: RequestFacts | undefined;
  /** The decoder threw (a bug, never the client's fault): the message, for a finding. */
  readonly failure: string | undefined;
}

export class RequestClassifier {
  private decoder: RequestDecoder | undefined;
  private failure: string | undefined;

  constructor(
    req: Pick<CallHead, 'method' | 'headers'>,
    pathAndQuery: string,
    maxBytes: number,
    /** The agent's REST interface paths, from its card: how a `/{tenant}` segment is told apart. */
    restBasePaths?: readonly string[],
  ) {
    const q = pathAndQuery.indexOf('?');
    const head = {
      method: req.method,
      path: q === -1 ? pathAndQuery : pathAndQuery.slice(0, q),
      query: q === -1 ? '' : pathAndQuery.slice(q + 1),
      // The decoder reads single-valued A2A headers; Node joins repeated ones except set-cookie.
      headers: req.headers as Record<string, string | undefined>,
    };
    this.decoder = this.guard(() => createRequestDecoder(head, { maxBytes, restBasePaths }));
  }

  push(chunk: Buffer): void {
    const decoder = this.decoder;
    if (decoder) this.guard(() => decoder.push(chunk));
  }

  /** Ends the body: `cut` when only its start was read (the rest streams past unclassified). */
  end(cut: boolean): Classification {
    const decoder = this.decoder;
    this.decoder = undefined;
    const facts = decoder ? this.guard(() => decoder.end({ aborted: cut })) : undefined;
    return { facts, failure: this.failure };
  }

  private guard<T>(step: () => T): T | undefined {
    if (this.failure !== undefined) return undefined;
    try {
      return step();
    } catch (err) {
      this.failure = (err as Error)?.message ?? String(err);
      this.decoder = undefined;
      return undefined;
    }
  }
}
