/**
 * Fetches agent cards and keeps them as long as their Cache-Control allows (bounded by
 * `cards.maxAge`), revalidating with their ETag (spec §8.6). Entries are kept per agent and per
 * the request headers the agent's `Vary` names: a2a-js serves a different card for
 * `A2A-Version: 1.0` than for a 0.3 client (wire-reference §3, §6.5).
 */
import type { Upstream } from '../transport/upstream.js';
import { upstreamFailure } from '../transport/errors.js';
import { GATEWAY_USER_AGENT } from '../version.js';

export interface CachedCard {
  readonly status: number;
  /** The agent's body, as it sent it. */
  readonly body: Buffer;
  /** The parsed card when the body is a JSON object. */
  readonly card: Record<string, unknown> | undefined;
  readonly contentType: string;
  readonly cacheControl: string | undefined;
  readonly vary: string | undefined;
  readonly etag: string | undefined;
  readonly fetchedAt: number;
  /** How long it may be served without asking the agent, in ms. */
  readonly freshFor: number;
}

interface Entry {
  readonly varyNames: string[];
  readonly varyValues: string[];
  card: CachedCard;
}

/** Request headers that may affect the card; forwarded when the gateway fetches it. */
const CARD_REQUEST_HEADERS = ['a2a-version', 'accept-language', 'authorization'] as const;
const MAX_ENTRIES_PER_AGENT = 16;

function header(h: Record<string, string | string[] | undefined>, name: string): string {
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

export class CardCache {
  private readonly entries = new Map<string, Entry[]>();

  constructor(
    private readonly maxAgeMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** The card for this request's headers: cached while fresh, else fetched or revalidated. */
  async get(
    upstream: Upstream,
    path: string,
    requestHeaders: Record<string, string | string[] | undefined>,
  ): Promise<CachedCard> {
    const key = `${upstream.name} ${path}`;
    const list = this.entries.get(key) ?? [];
    const entry = list.find((e) => e.varyNames.every((n, i) => header(requestHeaders, n) === e.varyValues[i]));
    if (entry && this.now() - entry.card.fetchedAt < entry.card.freshFor) return entry.card;

    const card = await this.fetch(upstream, path, requestHeaders, entry?.card);
    if (card.freshFor < 0 || card.status !== 200) return card;
    const varyNames = (card.vary ?? '')
      .split(',')
      .map((v) => v.trim().toLowerCase())
      .filter(Boolean);
    if (varyNames.includes('*')) return card;
    const fresh: Entry = { varyNames, varyValues: varyNames.map((n) => header(requestHeaders, n)), card };
    const kept = list.filter(
      (e) =>
        e !== entry &&
        !(e.varyNames.join() === fresh.varyNames.join() && e.varyValues.join('\n') === fresh.varyValues.join('\n')),
    );
    this.entries.set(key, [fresh, ...kept].slice(0, MAX_ENTRIES_PER_AGENT));
    return card;
  }

  private async fetch(
    upstream: Upstream,
    path: string,
    requestHeaders: Record<string, string | string[] | undefined>,
    stale: CachedCard | undefined,
  ): Promise<CachedCard> {
    // The gateway's own request (the card is shared by all clients): it says so in User-Agent.
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': GATEWAY_USER_AGENT };
    for (const name of CARD_REQUEST_HEADERS) {
      const value = header(requestHeaders, name);
      if (value) headers[name] = value;
    }
    for (const [name, value] of upstream.extraHeaders) headers[name.toLowerCase()] = value;
    if (stale?.etag) headers['if-none-match'] = stale.etag;
    let response;
    try {
      response = await upstream.pool.request({ path: upstream.basePath + path, method: 'GET', headers });
    } catch (err) {
      throw upstreamFailure(err, upstream.name);
    }
    const body = Buffer.from(await response.body.arrayBuffer());
    const h = response.headers;
    const cacheControl = typeof h['cache-control'] === 'string' ? h['cache-control'] : undefined;
    const freshFor = freshnessOf(cacheControl, this.maxAgeMs);
    if (response.statusCode === 304 && stale) {
      return { ...stale, fetchedAt: this.now(), freshFor, cacheControl: cacheControl ?? stale.cacheControl };
    }
    let card: Record<string, unknown> | undefined;
    try {
      const parsed: unknown = JSON.parse(body.toString('utf8'));
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) card = parsed as Record<string, unknown>;
    } catch {
      card = undefined;
    }
    return {
      status: response.statusCode,
      body,
      card,
      contentType: typeof h['content-type'] === 'string' ? h['content-type'] : 'application/json',
      cacheControl,
      vary: typeof h['vary'] === 'string' ? h['vary'] : undefined,
      etag: typeof h['etag'] === 'string' ? h['etag'] : undefined,
      fetchedAt: this.now(),
      freshFor,
    };
  }
}
