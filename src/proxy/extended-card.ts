/**
 * The extended agent card comes back as an ordinary response (JSON-RPC `GetExtendedAgentCard`,
 * 0.3 `agent/getAuthenticatedExtendedCard`; REST `GET /extendedAgentCard`, 0.3 `GET /v1/card`,
 * wire-reference §1, §6.2) and needs the same URL rewrite as the public card (§3).
 */
import type { BodyRewrite } from './forward.js';
import type { RequestFacts } from '../a2a/request.js';
import type { Binding } from '../a2a/operations.js';
import { rewriteCard } from '../cards/rewrite.js';
import { etagOf } from '../cards/etag.js';

/** The request asks for the extended card (routes and methods: src/a2a/rest-routes.ts, operations.ts). */
export function isExtendedCardRequest(facts: RequestFacts | undefined): boolean {
  return facts?.operation === 'GetExtendedAgentCard';
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

export function extendedCardRewrite(binding: Binding, agentUrl: string, publicAgentUrl: string): BodyRewrite {
  return {
    maxBytes: 1 << 20,
    apply(body, headers) {
      let doc: unknown;
      try {
        doc = JSON.parse(body.toString('utf8'));
      } catch {
        return { body, headers }; // not JSON: leave the agent's bytes alone
      }
      const card = binding === 'jsonrpc' ? (isObject(doc) ? doc['result'] : undefined) : doc;
      if (!isObject(doc) || !isObject(card)) return { body, headers };
      const rewritten = rewriteCard(card, agentUrl, publicAgentUrl).card;
      const out = Buffer.from(JSON.stringify(binding === 'jsonrpc' ? { ...doc, result: rewritten } : rewritten));
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
