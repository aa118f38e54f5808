/**
 * Fetches agent cards and keeps them as long as their Cache-Control allows (bounded by
 * `cards.maxAge`), revalidating with their ETag (spec §8.6). Entries are kept per agent and per
 * the request headers the agent's `Vary` names: a2a-js serves a different card for
 * `A2A-Version: 1.0` than for a 0.3 client (wire-reference §3, §6.5).
 *
 * A card fetch is the gateway's own request, shared by every client (docs/operations.md "Agent cards"):
 * - it carries the agent's configured `headers` and, of the caller's headers, only those that
 *   negotiate content (`CARD_REQUEST_HEADERS`): never Authorization, Cookie, an API key or any
 *   other credential, so no caller's credentials ever select the card another caller gets. A
 *   `Vary` naming a header the gateway does not forward (Authorization, Cookie, …) therefore
 *   does not split the cache: the gateway sent the same value (its own, or none) every time;
 * - the body is read as a stream with a running byte count and the fetch is aborted as soon as it
 *   passes `cards.maxBytes` (a declared Content-Length past it is refused before reading);
 * - it asks for `Accept-Encoding: identity`; an agent that still encodes (gzip, deflate, br) is
 *   decoded, with the same cap on the decoded size (a zip bomb stops at the cap);
 * - a redirect is refused, never followed;
 * - concurrent fetches of one card (same agent, path and forwarded headers) share one request.
 * A refusal is a `GatewayError` (`UPSTREAM_INVALID`, 502) that says why, logged once per reason.
 */
import { nestedDeeperThan } from '../codec/json-depth.js';
import { promisify } from 'node:util';
import { brotliDecompress, gunzip, inflate, inflateRaw, type ZlibOptions } from 'node:zlib';
import type { Dispatcher } from 'undici';
import type { Upstream } from '../transport/upstream.js';
import { discardBody, readCapped } from '../transport/read-capped.js';
import { GatewayError, upstreamFailure } from '../errors/gateway-error.js';
import { GATEWAY_USER_AGENT } from '../version.js';
import type { Logger } from '../log.js';
import type { CardSignatureConfig } from '../config/card-signature-schema.js';
import { cardVerifier, type SignatureCheck } from './signature.js';
import { keySetOf } from './jwks-source.js';

export interface CachedCard {
  readonly status: number;
  /** The agent's body, decoded (the gateway never serves the agent's Content-Encoding). */
  readonly body: Buffer;
  /** The parsed card when the body is a JSON object. */
  readonly card: Record<string, unknown> | undefined;
  readonly contentType: string;
  readonly cacheControl: string | undefined;
  readonly vary: string | undefined;
  readonly etag: string | undefined;
  readonly fetchedAt: number;
  /** The URL of the replica it came from: the base its interfaces are rewritten against (src/cards/rewrite.ts). */
  readonly from: string;
  /** How long it may be served without asking the agent, in ms. */
  readonly freshFor: number;
  /** The check of its signatures, when the agent has keys configured (`cards.signature`; signature.ts). */
  readonly signature?: SignatureCheck;
}

export interface CardCacheOptions {
  /** Upper bound on how long a card is reused (`cards.maxAge`), ms. */
  readonly maxAgeMs: number;
  /** Most bytes of a card, as received and as decoded (`cards.maxBytes`). */
  readonly maxBytes: number;
  readonly log?: Logger;
  readonly now?: () => number;
  /** Told of every signature check (the metric `a2a_card_signature_checks_total`). */
  readonly onSignature?: (agent: string, check: SignatureCheck) => void;
}

interface Entry {
  /** The `Vary` names that the gateway forwards from the caller (the rest never change). */
  readonly varyNames: string[];
  readonly varyValues: string[];
  card: CachedCard;
}

/**
 * The only caller headers that reach a card fetch: content negotiation (a2a-js answers 1.0 and
 * 0.3 clients with different cards). The gateway sends its own `Accept`.
 */
/** Arrays and objects within objects a card may nest: real cards stay under ten (OAuth flows, skill params). */
export const MAX_CARD_DEPTH = 64;

export const CARD_REQUEST_HEADERS: ReadonlySet<string> = new Set(['a2a-version', 'accept-language']);
const MAX_ENTRIES_PER_AGENT = 16;

type Headers = Record<string, string | string[] | undefined>;

function header(h: Headers, name: string): string {
  const v = h[name];
  return Array.isArray(v) ? v.join(', ') : (v ?? '');
}

/** max-age from Cache-Control, capped; 0 for no-cache / none given; -1 for no-store. */
export function freshnessOf(cacheControl: string | undefined, capMs: number): number {
  if (!cacheControl) return 0;
  const cc = cacheControl.toLowerCase();
  if (/(^|,)\s*(no-store|private)\s*(,|$)/.test(cc)) return -1;
  if (/(^|,)\s*no-cache\s*(,|$)/.test(cc)) return 0;
  const age = /(?:^|,)\s*(?:s-maxage|max-age)\s*=\s*"?(\d+)/.exec(cc);
  return age ? Math.min(Number(age[1]) * 1000, capMs) : 0;
}

const DECODERS: Record<string, (buf: Buffer, options: ZlibOptions) => Promise<Buffer>> = {
  gzip: promisify(gunzip) as (buf: Buffer, options: ZlibOptions) => Promise<Buffer>,
  'x-gzip': promisify(gunzip) as (buf: Buffer, options: ZlibOptions) => Promise<Buffer>,
  br: promisify(brotliDecompress) as (buf: Buffer, options: ZlibOptions) => Promise<Buffer>,
  // HTTP `deflate` is the zlib format (RFC 9110 §8.4.1.2); some servers send raw deflate.
  deflate: (buf, options) =>
    (promisify(inflate) as (b: Buffer, o: ZlibOptions) => Promise<Buffer>)(buf, options).catch((err: unknown) => {
      if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw err;
      return (promisify(inflateRaw) as (b: Buffer, o: ZlibOptions) => Promise<Buffer>)(buf, options);
    }),
};

/** Aborts a response body the gateway will not read (undici then closes the connection). */
function str(value: string | string[] | undefined): string | undefined {
  return typeof value === 'string' ? value : Array.isArray(value) ? value.join(', ') : undefined;
}

export class CardCache {
  private readonly entries = new Map<string, Entry[]>();
  private readonly inFlight = new Map<string, Promise<CachedCard>>();
  /** The last refusal logged per agent, so a card refused every retry is logged once. */
  private readonly refusals = new Map<string, string>();
  private readonly maxAgeMs: number;
  private readonly maxBytes: number;
  private readonly log: Logger | undefined;
  private readonly now: () => number;
  private readonly verifiers = new WeakMap<
    CardSignatureConfig,
    (card: Record<string, unknown>) => Promise<SignatureCheck>
  >();
  /** The last signature result logged per agent: a change is logged, a repeat is not. */
  private readonly signatureSeen = new Map<string, string>();
  private readonly onSignature: ((agent: string, check: SignatureCheck) => void) | undefined;

  constructor(options: CardCacheOptions) {
    this.onSignature = options.onSignature;
    this.maxAgeMs = options.maxAgeMs;
    this.maxBytes = options.maxBytes;
    this.log = options.log;
    this.now = options.now ?? Date.now;
  }

  /** The card for this request's headers: cached while fresh, else fetched or revalidated. */
  async get(upstream: Upstream, path: string, requestHeaders: Headers): Promise<CachedCard> {
    const key = `${upstream.name} ${path}`;
    const sent = (name: string) => (CARD_REQUEST_HEADERS.has(name) ? header(requestHeaders, name) : '');
    const list = this.entries.get(key) ?? [];
    const entry = list.find((e) => e.varyNames.every((n, i) => sent(n) === e.varyValues[i]));
    if (entry && this.now() - entry.card.fetchedAt < entry.card.freshFor) return entry.card;

    // Single flight: one request per distinct card fetch at a time, whoever asks.
    const forwarded = [...CARD_REQUEST_HEADERS].map((n) => [n, sent(n)] as const).filter(([, v]) => v);
    const flightKey = `${key}\n${forwarded.map(([n, v]) => `${n}:${v}`).join('\n')}`;
    const running = this.inFlight.get(flightKey);
    if (running) return running;
    const flight = this.refresh(upstream, key, Object.fromEntries(forwarded), entry).finally(() =>
      this.inFlight.delete(flightKey),
    );
    this.inFlight.set(flightKey, flight);
    return flight;
  }

  private async refresh(
    upstream: Upstream,
    key: string,
    forwarded: Record<string, string>,
    entry: Entry | undefined,
  ): Promise<CachedCard> {
    const path = key.slice(upstream.name.length + 1);
    let card: CachedCard;
    try {
      card = await this.fetch(upstream, path, forwarded, entry?.card);
      this.refusals.delete(upstream.name);
    } catch (err) {
      if (err instanceof GatewayError && err.reason === 'UPSTREAM_INVALID') this.logRefusal(upstream.name, err);
      throw err;
    }
    if (card.freshFor < 0 || card.status !== 200) return card;
    const varyNames = (card.vary ?? '')
      .split(',')
      .map((v) => v.trim().toLowerCase())
      .filter(Boolean);
    if (varyNames.includes('*')) return card;
    const names = varyNames.filter((n) => CARD_REQUEST_HEADERS.has(n));
    const fresh: Entry = { varyNames: names, varyValues: names.map((n) => forwarded[n] ?? ''), card };
    const list = this.entries.get(key) ?? [];
    const kept = list.filter(
      (e) =>
        e !== entry &&
        !(e.varyNames.join() === fresh.varyNames.join() && e.varyValues.join('\n') === fresh.varyValues.join('\n')),
    );
    this.entries.set(key, [fresh, ...kept].slice(0, MAX_ENTRIES_PER_AGENT));
    return card;
  }

  private logRefusal(agent: string, err: GatewayError): void {
    if (this.refusals.get(agent) === err.message) return;
    this.refusals.set(agent, err.message);
    this.log?.warn({ agent, reason: err.metadata['cause'], err: err.message }, 'agent card refused');
  }

  private refuse(agent: string, cause: string, why: string): GatewayError {
    return new GatewayError('UPSTREAM_INVALID', `the card of agent "${agent}" was refused: ${why}`, { agent, cause });
  }

  private async fetch(
    upstream: Upstream,
    path: string,
    forwarded: Record<string, string>,
    stale: CachedCard | undefined,
  ): Promise<CachedCard> {
    // The gateway's own request (the card is shared by all clients): it says so in User-Agent.
    const headers: Record<string, string> = {
      accept: 'application/json',
      'accept-encoding': 'identity',
      'user-agent': GATEWAY_USER_AGENT,
      ...forwarded,
    };
    for (const [name, value] of upstream.extraHeaders) headers[name.toLowerCase()] = value;
    if (stale?.etag) headers['if-none-match'] = stale.etag;
    let response;
    const replica = upstream.picker.any();
    try {
      response = await replica.pool.request({ path: upstream.basePath + path, method: 'GET', headers });
    } catch (err) {
      throw upstreamFailure(err, upstream.name);
    }
    const h = response.headers;
    const status = response.statusCode;
    if (status >= 300 && status < 400 && !(status === 304 && stale)) {
      discardBody(response.body);
      const location = str(h['location']);
      throw this.refuse(
        upstream.name,
        'CARD_REDIRECT',
        `the agent answered its card with a redirect to ${location ? JSON.stringify(location) : 'nowhere (no Location)'} (HTTP ${status}); the gateway does not follow card redirects: configure the agent's url or cardPath to where the card is`,
      );
    }
    const raw = await this.readBody(upstream.name, response);
    const cacheControl = str(h['cache-control']);
    const freshFor = freshnessOf(cacheControl, this.maxAgeMs);
    if (status === 304 && stale) {
      return { ...stale, fetchedAt: this.now(), freshFor, cacheControl: cacheControl ?? stale.cacheControl };
    }
    const body = await this.decode(upstream.name, raw, str(h['content-encoding']));
    let card: Record<string, unknown> | undefined;
    try {
      const parsed: unknown = JSON.parse(body.toString('utf8'));
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) card = parsed as Record<string, unknown>;
    } catch {
      card = undefined;
    }
    // Rewriting it would overflow the stack (src/codec/json-depth.ts): an invalid card, said so.
    if (card && nestedDeeperThan(card, MAX_CARD_DEPTH)) {
      throw this.refuse(upstream.name, 'CARD_TOO_DEEP', `it is nested deeper than ${MAX_CARD_DEPTH} levels`);
    }
    const signature = card && status === 200 ? await this.checkSignature(upstream, card) : undefined;
    return {
      status,
      body,
      card,
      ...(signature ? { signature } : {}),
      contentType: str(h['content-type']) ?? 'application/json',
      cacheControl,
      vary: str(h['vary']),
      etag: str(h['etag']),
      fetchedAt: this.now(),
      from: replica.url,
      freshFor,
    };
  }

  /**
   * Checks a fetched card's signatures once per fetch (a 304 keeps the check of the card it
   * revalidates); with `require`, a card that does not verify is refused like any invalid card.
   */
  private async checkSignature(upstream: Upstream, card: Record<string, unknown>): Promise<SignatureCheck | undefined> {
    const config = upstream.config.cards.signature;
    if (!config) return undefined;
    let verify = this.verifiers.get(config);
    if (!verify) {
      verify = cardVerifier(keySetOf(config));
      this.verifiers.set(config, verify);
    }
    const check = await verify(card);
    this.onSignature?.(upstream.name, check);
    if (this.signatureSeen.get(upstream.name) !== check.result) {
      this.signatureSeen.set(upstream.name, check.result);
      const fields = { agent: upstream.name, result: check.result, kid: check.kid, why: check.why };
      if (check.result === 'valid') this.log?.info(fields, 'agent card signature checked');
      else this.log?.warn(fields, 'agent card signature checked');
    }
    if (config.require && check.result !== 'valid') {
      throw this.refuse(
        upstream.name,
        'CARD_SIGNATURE',
        `its signature does not verify with the configured keys (cards.signature.require): ${check.why ?? check.result}`,
      );
    }
    return check;
  }

  private tooLarge(agent: string, what: string): GatewayError {
    return this.refuse(agent, 'CARD_TOO_LARGE', `${what} is larger than cards.maxBytes (${this.maxBytes} bytes)`);
  }

  /** The body, never more than `maxBytes` of it: past it the fetch is aborted (read-capped.ts). */
  private async readBody(agent: string, response: Dispatcher.ResponseData): Promise<Buffer> {
    let raw: Buffer | undefined;
    try {
      raw = await readCapped(response, this.maxBytes);
    } catch (err) {
      throw upstreamFailure(err, agent);
    }
    if (raw) return raw;
    const declared = str(response.headers['content-length']);
    throw this.tooLarge(
      agent,
      declared && Number(declared) > this.maxBytes ? `the card (Content-Length ${declared})` : 'the card',
    );
  }

  private async decode(agent: string, raw: Buffer, contentEncoding: string | undefined): Promise<Buffer> {
    const codings = (contentEncoding ?? '')
      .split(',')
      .map((c) => c.trim().toLowerCase())
      .filter((c) => c && c !== 'identity');
    if (codings.length === 0) return raw;
    const decoder = codings.length === 1 ? DECODERS[codings[0]!] : undefined;
    if (!decoder) {
      throw this.refuse(
        agent,
        'CARD_ENCODING',
        `the agent sent its card with Content-Encoding ${JSON.stringify(contentEncoding)}, which the gateway does not decode (it asks for identity; gzip, deflate and br are decoded)`,
      );
    }
    try {
      return await decoder(raw, { maxOutputLength: this.maxBytes });
    } catch (err) {
      if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw this.tooLarge(agent, 'the decoded card');
      throw this.refuse(
        agent,
        'CARD_ENCODING',
        `the card's ${codings[0]} encoding could not be decoded (${(err as Error).message})`,
      );
    }
  }
}
