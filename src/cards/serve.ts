/**
 * Answers a client's agent-card request from the card cache, with the card's interface URLs
 * pointing at the gateway (rewrite.ts). ETag and Content-Length are recomputed for the body the
 * client gets; Cache-Control and Vary are the agent's; If-None-Match is answered with 304.
 *
 * The public URL comes from the request (Host, or a trusted proxy's X-Forwarded-*), so it can
 * differ per request. The card is rewritten and serialised once per fetched card, with a
 * placeholder for the public agent URL; a request then only puts its (JSON-escaped) URL into the
 * placeholder's places (the body is written as the template's slices around it, never copied) and gets an ETag derived from the template's
 * ETag and that URL. A few recent renderings are kept per card, so a fixed Host costs nothing
 * and a flood of distinct Host values costs a small hash per request, never a re-render.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CachedCard } from './cache.js';
import { rewriteCard, type CardRewrite } from './rewrite.js';
import { etagOf, ifNoneMatchHits } from './etag.js';
import { withGatewaySecurity, type CardSecurity } from './security.js';
import type { CardSigner } from './signer.js';
import type { ProtocolVersion } from '../a2a/operations.js';
import { translateCard } from '../translate/card.js';

/** One rendering: the template's parts with the public URL between them, never copied into one
 * buffer unless `body` is read (the catalog does; the card route writes the chunks). */
export class ServedCard {
  readonly length: number;
  private joined: Buffer | undefined;
  constructor(
    readonly chunks: readonly Buffer[],
    readonly etag: string,
    /** The rewrite, made against a placeholder public URL: its `untouched` and counts hold; read
     * the served card from `body`. */
    readonly rewrite: CardRewrite | undefined,
  ) {
    this.length = chunks.reduce((n, c) => n + c.length, 0);
  }
  get body(): Buffer {
    return (this.joined ??= this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.length));
  }
}

/** What one fetched card renders to, for any public URL. */
interface Template {
  /** The serialised rewritten card, cut at every occurrence of a placeholder. */
  readonly parts: readonly Buffer[];
  /** Which placeholder stood between `parts[i]` and `parts[i + 1]`. */
  readonly slots: readonly Slot[];
  readonly etag: string;
  readonly rewrite: CardRewrite | undefined;
  /** The most recent renderings by public agent URL (insertion order = recency). */
  readonly recent: Map<string, ServedCard>;
}

/** Renderings kept per fetched card. */
export const RENDERINGS_PER_CARD = 4;

/** Cannot occur in a card: random per process, and only characters JSON leaves unescaped. */
const PLACEHOLDER = `http://a2a-gateway-public-url-${randomBytes(12).toString('hex')}.invalid`;
const PLACEHOLDER_BYTES = Buffer.from(PLACEHOLDER);
/** The gateway's gRPC `host:port` for the agent, per request like the public URL. */
const GRPC_PLACEHOLDER = `a2a-gateway-grpc-${randomBytes(12).toString('hex')}.invalid:1`;
const GRPC_PLACEHOLDER_BYTES = Buffer.from(GRPC_PLACEHOLDER);

/**
 * Keyed by the fetched body, which a revalidated (304) card keeps: no re-render per revalidation;
 * one map for agents the gateway has a gRPC route for, one for the others.
 */
const templates = new Map<string, WeakMap<Buffer, Template>>();

function templatesFor(grpc: boolean, shape: ProtocolVersion | undefined): WeakMap<Buffer, Template> {
  const key = `${grpc ? 'grpc' : 'plain'} ${shape ?? ''}`;
  let map = templates.get(key);
  if (!map) templates.set(key, (map = new WeakMap()));
  return map;
}

let templatesMade = 0;
/** How many times a card has been rewritten and serialised (tests and benchmarks read it). */
export function renderCount(): number {
  return templatesMade;
}

type Slot = 'url' | 'grpc';

function split(body: Buffer): { parts: Buffer[]; slots: Slot[] } {
  const parts: Buffer[] = [];
  const slots: Slot[] = [];
  let from = 0;
  for (;;) {
    const url = body.indexOf(PLACEHOLDER_BYTES, from);
    const grpc = body.indexOf(GRPC_PLACEHOLDER_BYTES, from);
    if (url === -1 && grpc === -1) break;
    const slot: Slot = grpc === -1 || (url !== -1 && url < grpc) ? 'url' : 'grpc';
    const at = slot === 'url' ? url : grpc;
    parts.push(body.subarray(from, at));
    slots.push(slot);
    from = at + (slot === 'url' ? PLACEHOLDER_BYTES : GRPC_PLACEHOLDER_BYTES).length;
  }
  parts.push(body.subarray(from));
  return { parts, slots };
}

function templateOf(
  cached: CachedCard,
  agentUrl: string,
  security: CardSecurity | undefined,
  grpc: boolean,
  shape: ProtocolVersion | undefined,
): Template {
  const known = templatesFor(grpc, shape).get(cached.body);
  if (known) return known;
  let template: Template;
  if (cached.card && cached.status === 200) {
    templatesMade++;
    // `translate` on: the card in the caller's version (src/translate/card.ts), then rewritten.
    const shaped = shape === undefined ? cached.card : (translateCard(cached.card, shape) as typeof cached.card);
    const rewrite = rewriteCard(shaped, agentUrl, PLACEHOLDER, grpc ? GRPC_PLACEHOLDER : undefined);
    const card = security ? withGatewaySecurity(rewrite.card, security) : rewrite.card;
    const body = Buffer.from(JSON.stringify(card));
    template = { ...split(body), etag: etagOf(body), rewrite, recent: new Map() };
  } else {
    // Not a card (an error, or not a JSON object): the agent's bytes go through as they are.
    const etag = cached.etag ?? etagOf(cached.body);
    template = { parts: [cached.body], slots: [], etag, rewrite: undefined, recent: new Map() };
  }
  templatesFor(grpc, shape).set(cached.body, template);
  return template;
}

export function renderCard(
  cached: CachedCard,
  agentUrl: string,
  publicAgentUrl: string,
  /** The gateway's own authentication, advertised in place of the agent's (`auth` on). */
  security?: CardSecurity,
  /** The gateway's gRPC `host:port` for this agent; undefined: it has no gRPC route. */
  grpcAuthority?: string,
  /** The gateway's key (`cards.signing`): the rendering carries its signature (signer.ts). */
  signer?: CardSigner,
  /** The agent has `translate`: the card in this version's shape (src/translate/card.ts). */
  shape?: ProtocolVersion,
): ServedCard {
  const template = templateOf(cached, agentUrl, security, grpcAuthority !== undefined, shape);
  const publicUrl = publicAgentUrl.replace(/\/+$/, '');
  const key = grpcAuthority === undefined ? publicUrl : `${publicUrl} ${grpcAuthority}`;
  const hit = template.recent.get(key);
  if (hit) {
    template.recent.delete(key);
    template.recent.set(key, hit);
    return hit;
  }
  let served: ServedCard;
  if (template.parts.length === 1) {
    served = new ServedCard(template.parts, template.etag, template.rewrite);
  } else {
    const values = { url: jsonText(publicUrl), grpc: jsonText(grpcAuthority ?? '') };
    const pieces: Buffer[] = [];
    template.parts.forEach((part, i) =>
      i === 0 ? pieces.push(part) : pieces.push(values[template.slots[i - 1]!], part),
    );
    // The body is a function of the template and the URLs: hashing those names it exactly.
    const etag = etagOf(`${template.etag}\n${key}`);
    served = new ServedCard(pieces, etag, template.rewrite);
  }
  if (signer && template.rewrite) served = signed(served, signer);
  template.recent.set(key, served);
  if (template.recent.size > RENDERINGS_PER_CARD) template.recent.delete(template.recent.keys().next().value!);
  return served;
}

/**
 * The rendering with the gateway's signature in place of the agent's: once per rendering (kept in
 * `recent`), so a fixed Host signs once per fetched card. With `passThroughUnchanged`, a card
 * that still carries the agent's signatures (no URL changed, rewrite.ts) keeps them.
 */
function signed(served: ServedCard, signer: CardSigner): ServedCard {
  const card = JSON.parse(served.body.toString('utf8')) as Record<string, unknown>;
  const own = card['signatures'];
  if (signer.passThroughUnchanged && Array.isArray(own) && own.length > 0) return served;
  card['signatures'] = signer.sign(card);
  const body = Buffer.from(JSON.stringify(card));
  return new ServedCard([body], etagOf(body), served.rewrite);
}

/** `text` as it stands inside a JSON string. */
function jsonText(text: string): Buffer {
  return Buffer.from(JSON.stringify(text).slice(1, -1));
}

export function sendCard(
  req: IncomingMessage,
  res: ServerResponse,
  cached: CachedCard,
  served: ServedCard,
  /** The card's shape follows the caller's A2A-Version (`translate` on): caches must know. */
  byVersion = false,
): void {
  const headers: Record<string, string | number> = { etag: served.etag };
  if (cached.cacheControl) headers['cache-control'] = cached.cacheControl;
  const vary = byVersion && !/\ba2a-version\b/i.test(cached.vary ?? '') ? [cached.vary, 'A2A-Version'] : [cached.vary];
  const varyText = vary.filter(Boolean).join(', ');
  if (varyText) headers['vary'] = varyText;
  if (cached.status === 200 && ifNoneMatchHits(req.headers['if-none-match'], served.etag)) {
    res.writeHead(304, headers);
    res.end();
    return;
  }
  headers['content-type'] = cached.contentType;
  headers['content-length'] = served.length;
  res.writeHead(cached.status, headers);
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  res.cork();
  for (const chunk of served.chunks) res.write(chunk);
  res.end();
  res.uncork();
}
