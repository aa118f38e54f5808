/**
 * Answers a client's agent-card request from the card cache, with the card's interface URLs
 * pointing at the gateway (rewrite.ts). ETag and Content-Length are recomputed for the body the
 * client gets; Cache-Control and Vary are the agent's; If-None-Match is answered with 304.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CachedCard } from './cache.js';
import { rewriteCard, type CardRewrite } from './rewrite.js';
import { etagOf, ifNoneMatchHits } from './etag.js';

export interface ServedCard {
  readonly body: Buffer;
  readonly etag: string;
  readonly rewrite: CardRewrite | undefined;
}

/** Memo of rewritten bodies per fetched card and public URL (Host-derived URLs can differ). */
const rendered = new WeakMap<CachedCard, Map<string, ServedCard>>();

export function renderCard(cached: CachedCard, agentUrl: string, publicAgentUrl: string): ServedCard {
  let perUrl = rendered.get(cached);
  const hit = perUrl?.get(publicAgentUrl);
  if (hit) return hit;
  let served: ServedCard;
  if (cached.card && cached.status === 200) {
    const rewrite = rewriteCard(cached.card, agentUrl, publicAgentUrl);
    const body = Buffer.from(JSON.stringify(rewrite.card));
    served = { body, etag: etagOf(body), rewrite };
  } else {
    // Not a card (an error, or not a JSON object): the agent's bytes go through as they are.
    served = { body: cached.body, etag: cached.etag ?? etagOf(cached.body), rewrite: undefined };
  }
  if (!perUrl) rendered.set(cached, (perUrl = new Map()));
  if (perUrl.size < 32) perUrl.set(publicAgentUrl, served);
  return served;
}

export function sendCard(req: IncomingMessage, res: ServerResponse, cached: CachedCard, served: ServedCard): void {
  const headers: Record<string, string | number> = { etag: served.etag };
  if (cached.cacheControl) headers['cache-control'] = cached.cacheControl;
  if (cached.vary) headers['vary'] = cached.vary;
  if (cached.status === 200 && ifNoneMatchHits(req.headers['if-none-match'], served.etag)) {
    res.writeHead(304, headers);
    res.end();
    return;
  }
  headers['content-type'] = cached.contentType;
  headers['content-length'] = served.body.length;
  res.writeHead(cached.status, headers);
  res.end(req.method === 'HEAD' ? undefined : served.body);
}
