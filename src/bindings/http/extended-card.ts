/**
 * The extended agent card comes back as an ordinary response (JSON-RPC `GetExtendedAgentCard`,
 * 0.3 `agent/getAuthenticatedExtendedCard`; REST `GET /extendedAgentCard`, 0.3 `GET /v1/card`,
 * wire-reference §1, §6.2) and needs the same URL rewrite as the public card (§3). It is
 * rewritten inside the agent's bytes (src/cards/rewrite-bytes.ts): only the interface URLs change
 * (and `signatures` go), never a number, a duplicate key or an escape. An answer that is no card
 * (a Task, invalid JSON, …) is passed on as it came, with the finding `a2a.extended-card-not-a-card`.
 *
 * With `auth` on, the card also advertises the gateway's security schemes instead of the
 * agent's (src/cards/security.ts), as the public card does: the SDK 1.3.0 client replaces the
 * public card with the extended one, and would otherwise send what the agent asks for. That
 * change is made on the parsed card (re-serialised), as for the public card.
 *
 * With `cards.signing`, the card gets the gateway's signature in place of the agent's
 * (src/cards/signer.ts), also on the parsed card, re-serialised: a signature is over the JCS of
 * the parsed card, and a client's parse of the re-serialised bytes is that same card, whatever
 * numbers or duplicate keys the agent's bytes held.
 */
import type { BodyRewrite } from './forward.js';
import type { JsonBinding, ProtocolVersion } from '../../a2a/operations.js';
import { rewriteCardBytes } from '../../cards/rewrite-bytes.js';
import { etagOf } from '../../cards/etag.js';
import { withGatewaySecurity, type CardSecurity } from '../../cards/security.js';
import type { CardSigner } from '../../cards/signer.js';
import { withRewrittenBody } from '../../transport/headers.js';

/** The card inside the (URL-rewritten) answer, with the gateway's schemes. */
function secured(body: Uint8Array, binding: JsonBinding, version: ProtocolVersion, security: CardSecurity): Uint8Array {
  const doc = JSON.parse(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8')) as Record<
    string,
    unknown
  >;
  const out =
    binding === 'jsonrpc'
      ? { ...doc, result: withGatewaySecurity(doc['result'] as Record<string, unknown>, security) }
      : withGatewaySecurity(doc, security, version === '0.3' ? '0.3-proto' : undefined);
  return Buffer.from(JSON.stringify(out));
}

/** The answer with the gateway's signature on its card (`passThroughUnchanged`: an unchanged signed card keeps the agent's). */
function signed(body: Uint8Array, binding: JsonBinding, signer: CardSigner, changed: boolean): Uint8Array {
  const doc = JSON.parse(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8')) as Record<
    string,
    unknown
  >;
  const card = (binding === 'jsonrpc' ? doc['result'] : doc) as Record<string, unknown> | undefined;
  if (!card || typeof card !== 'object') return body;
  const own = card['signatures'];
  if (signer.passThroughUnchanged && !changed && Array.isArray(own) && own.length > 0) return body;
  card['signatures'] = signer.sign(card);
  return Buffer.from(JSON.stringify(doc));
}

export function extendedCardRewrite(
  binding: JsonBinding,
  agentUrl: string,
  /** The agent's public URL, and its gRPC `host:port` at the gateway (src/bindings/grpc/card-address.ts), if any. */
  at: { readonly publicUrl: string; readonly grpc: string | undefined },
  security?: { readonly schemes: CardSecurity; readonly version: ProtocolVersion },
  signer?: CardSigner,
): BodyRewrite {
  const place = binding === 'jsonrpc' ? 'result' : 'body';
  return {
    maxBytes: 1 << 20,
    apply(body, headers) {
      const rewrite = rewriteCardBytes(body, place, agentUrl, at.publicUrl, at.grpc);
      if (rewrite.notCard !== undefined) {
        return {
          body,
          headers,
          findings: [{ rule: 'a2a.extended-card-not-a-card', count: 1, detail: rewrite.notCard }],
        };
      }
      const unsigned = security ? secured(rewrite.body, binding, security.version, security.schemes) : rewrite.body;
      const changed = unsigned !== body;
      const bytes = signer ? signed(unsigned, binding, signer, changed) : unsigned;
      if (bytes === body) return { body, headers }; // the agent's bytes, and its ETag for them
      const out = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      return { body: out, headers: [...withRewrittenBody(headers, out.length), 'etag', etagOf(out)] };
    },
  };
}
