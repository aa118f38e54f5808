/**
 * The extended agent card comes back as an ordinary response (JSON-RPC `GetExtendedAgentCard`,
 * 0.3 `agent/getAuthenticatedExtendedCard`; REST `GET /extendedAgentCard`, 0.3 `GET /v1/card`,
 * wire-reference §1, §6.2) and needs the same URL rewrite as the public card (§3). It is
 * rewritten inside the agent's bytes (src/cards/rewrite-bytes.ts): only the interface URLs change
 * (and `signatures` go), never a number, a duplicate key or an escape. An answer that is no card
 * (a Task, invalid JSON, …) is passed on as it came, with the finding `a2a.extended-card-not-a-card`.
 */
import type { BodyRewrite } from './forward.js';
import type { RequestFacts } from '../a2a/request.js';
import type { Binding } from '../a2a/operations.js';
import { rewriteCardBytes } from '../cards/rewrite-bytes.js';
import { etagOf } from '../cards/etag.js';

/** The request asks for the extended card (routes and methods: src/a2a/rest-routes.ts, operations.ts). */
export function isExtendedCardRequest(facts: RequestFacts | undefined): boolean {
  return facts?.operation === 'GetExtendedAgentCard';
}

export function extendedCardRewrite(binding: Binding, agentUrl: string, publicAgentUrl: string): BodyRewrite {
  return {
    maxBytes: 1 << 20,
    apply(body, headers) {
      const rewrite = rewriteCardBytes(body, binding === 'jsonrpc' ? 'result' : 'body', agentUrl, publicAgentUrl);
      if (rewrite.notCard !== undefined) {
        return {
          body,
          headers,
          findings: [{ rule: 'a2a.extended-card-not-a-card', count: 1, detail: rewrite.notCard }],
        };
      }
      if (rewrite.body === body) return { body, headers }; // the agent's bytes, and its ETag for them
      const out = Buffer.from(rewrite.body.buffer, rewrite.body.byteOffset, rewrite.body.byteLength);
      const kept: string[] = [];
      for (let i = 0; i < headers.length; i += 2) {
        const name = headers[i]!.toLowerCase();
        if (name !== 'content-length' && name !== 'etag') kept.push(headers[i]!, headers[i + 1]!);
      }
      kept.push('content-length', String(out.length), 'etag', etagOf(out));
      return { body: out, headers: kept };
    },
  };
}
