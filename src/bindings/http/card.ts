/**
 * Pipeline step 4 on the HTTP binding: the agent card from the card cache (src/cards/cache.ts),
 * rendered with this request's public URL and gRPC address (src/cards/serve.ts), or a 304.
 */
import type { Exchange } from '../../exchange/exchange.js';
import type { CardCache } from '../../cards/cache.js';
import type { CardSecurity } from '../../cards/security.js';
import { renderCard, sendCard } from '../../cards/serve.js';
import type { CardSigner } from '../../cards/signer.js';
import { upstreamFailure } from '../../errors/gateway-error.js';
import { sendGatewayError, type ErrorContext } from '../../errors/json-answer.js';
import type { HttpCall } from './http-call.js';
import type { ProtocolVersion } from '../../a2a/operations.js';

/** Where the agent is at the gateway: its public URL and its gRPC `host:port` (if it has a gRPC route). */
export interface CardAddress {
  readonly publicUrl: string;
  readonly grpc: string | undefined;
}

export async function serveCardFromCache(
  exchange: Exchange,
  call: HttpCall,
  cards: CardCache,
  cardPath: string,
  at: CardAddress,
  errorContext: ErrorContext,
  security: CardSecurity | undefined,
  signer?: CardSigner,
  /** The agent has `translate`: the card in the caller's version (src/translate/card.ts). */
  shape?: ProtocolVersion,
): Promise<void> {
  const { req, res } = call;
  const { upstream } = exchange;
  try {
    const cached = await cards.get(upstream, cardPath, req.headers);
    const served = renderCard(cached, cached.from, at.publicUrl, security, at.grpc, signer, shape);
    exchange.record.bytesOut = served.length;
    // Served anyway (no `require`): say so on the exchange (docs/security.md "Signed agent cards").
    const check = cached.signature;
    if (check && check.result !== 'valid')
      exchange.record.findings.push({ rule: 'card.signature-invalid', count: 1, detail: check.why ?? check.result });
    sendCard(req, res, cached, served, shape !== undefined);
  } catch (err) {
    const failure = upstreamFailure(err, upstream.name);
    exchange.fail('upstream-error', failure);
    sendGatewayError(res, failure, errorContext);
  }
  exchange.finish();
}
