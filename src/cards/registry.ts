/**
 * Keeps each agent's card known for the catalogs (`GET /agents`: the full one on the admin
 * listener, the public one on the traffic listener) and readiness (`GET /readyz`):
 * fetched at start-up with `A2A-Version: 1.0` (the card a 1.0 client sees, wire-reference §3),
 * retried every `cards.retry` until it has been fetched once, then refreshed through the cache.
 * The catalog is served from the cache: concurrent fetches of one card are one request (the
 * cache's single flight), and a card asked for again within `CATALOG_REUSE_MS` of its last fetch
 * is not fetched again, even when its Cache-Control says no-cache (a busy `/agents` costs the
 * agent at most one card request per second).
 *
 * An agent's card state (`cardStates`) is not the gateway's readiness (issue #30): one
 * unreachable agent must not take every pod out of its Service. It goes to the metrics
 * (`a2a_agent_card_up`), the admin `/readyz` (`cardsUnavailable`) and, only for agents marked
 * `required: true`, to readiness itself (`requiredPending`, src/control/health.ts).
 */
import type { Upstream } from '../transport/upstream.js';
import { restBasePaths } from '../a2a/card-interfaces.js';
import { confirmTarget, type ConfirmTarget } from '../a2a/confirm-target.js';
import type { CardCache, CachedCard } from './cache.js';
import { renderCard } from './serve.js';
import type { CardSecurity } from './security.js';
import type { SignatureCheck } from './signature.js';
import type { CardSigner } from './signer.js';
import type { Logger } from '../log.js';

export interface AgentStatus {
  name: string;
  /** Where clients should point their A2A client (note the trailing slash). */
  url: string;
  /** The agent's own hosts (`agents.{name}.hosts`), each at its root: also where clients may point. */
  hostUrls?: string[];
  upstream: string;
  reachable: boolean;
  card?: Record<string, unknown>;
  cardError?: string;
  /** The check of the card's signatures, when the agent has keys configured (`cards.signature`). */
  cardSignature?: SignatureCheck;
  /** Interface URLs the rewrite left alone (they do not live under the agent's URL). */
  untouchedInterfaces?: Array<{ field: string; url: string; why: string }>;
  /** The A2A version the agent speaks, when calls in the other are translated (docs/translation.md). */
  translate?: { readonly agentVersion: string };
}

/**
 * What the traffic listener's `GET /agents` shows of an agent: what its clients see anyway (the
 * card as served at the gateway). Not the upstream URL, the interfaces left alone, nor the
 * card error, whose text may name the agent's address.
 */
export interface PublicAgentStatus {
  name: string;
  url: string;
  hostUrls?: string[];
  /** The card could be had just now (fetched, or reused from the last `CATALOG_REUSE_MS`). */
  ready: boolean;
  card?: Record<string, unknown>;
}

/**
 * An agent's card as the registry knows it: `pending` before the first fetch has answered,
 * `available` when the last fetch succeeded (or the previous generation's did, `carryOver`),
 * `unavailable` when the last fetch failed.
 */
export type CardState = 'pending' | 'available' | 'unavailable';

const PROBE_HEADERS = { 'a2a-version': '1.0' };
/** The catalog reuses an agent's last fetched card this long, whatever its Cache-Control. */
export const CATALOG_REUSE_MS = 1000;

interface Known {
  readonly cached: CachedCard;
  readonly at: number;
  /** The last catalog rendering (one public URL; re-parsed only when the card or URL changes). */
  rendered?: { readonly publicUrl: string; readonly body: Buffer; readonly card: Record<string, unknown> };
}

export class CardRegistry {
  private readonly fetchedOnce = new Set<string>();
  private readonly lastError = new Map<string, string>();
  private readonly known = new Map<string, Known>();
  /** Per agent, its card's REST interface paths (`restBasePaths`), as of the last fetch. */
  private readonly restPaths = new Map<string, readonly string[]>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private stopped = false;

  constructor(
    private readonly upstreams: ReadonlyMap<string, Upstream>,
    private readonly cache: CardCache,
    private readonly retryMs: number,
    private readonly log: Logger,
    /** The gateway's authentication, advertised in the cards it lists (as in the cards it serves). */
    private readonly security?: CardSecurity,
    /** The gateway's card signature (`cards.signing`), as on the card route. */
    private readonly signer?: CardSigner,
  ) {}

  /** Starts fetching every card in the background; never throws. */
  start(): void {
    for (const upstream of this.upstreams.values()) void this.probe(upstream);
  }

  stop(): void {
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  /**
   * After a reload (src/reload/): agents whose card the previous generation's registry had
   * fetched, with the same URL and card path, count as fetched here too, so readiness does not
   * drop while this registry's first fetches run.
   */
  carryOver(previous: CardRegistry): void {
    for (const [name, upstream] of this.upstreams) {
      const before = previous.upstreams.get(name)?.config;
      const same = before?.url === upstream.config.url && before.cardPath === upstream.config.cardPath;
      if (same && previous.fetchedOnce.has(name)) this.fetchedOnce.add(name);
    }
  }

  /** The REST interface paths of the agent's card below its mount path, once the card is known:
   * how the request decoder tells a `/{tenant}` segment (src/a2a/rest-routes.ts). */
  restBasePaths(agent: string): readonly string[] | undefined {
    return this.restPaths.get(agent);
  }

  /** Where the gateway's own GetTask goes (src/confirm/confirm.ts), once the card is known. */
  confirmTarget(agent: string): ConfirmTarget | undefined {
    const upstream = this.upstreams.get(agent);
    const card = this.known.get(agent)?.cached.card;
    return upstream && card ? confirmTarget(card, upstream.basePath) : undefined;
  }

  /** Every agent's card has been fetched once (no longer what readiness means: `requiredPending`). */
  ready(): boolean {
    return this.fetchedOnce.size === this.upstreams.size;
  }

  /** The agents whose card has not been fetched yet. */
  pending(): string[] {
    return [...this.upstreams.keys()].filter((n) => !this.fetchedOnce.has(n));
  }

  /** Every agent's card state, in config order (metrics, the admin `/readyz`). */
  cardStates(): Array<{ agent: string; state: CardState }> {
    return [...this.upstreams.keys()].map((agent) => ({ agent, state: this.cardState(agent) }));
  }

  private cardState(agent: string): CardState {
    if (this.lastError.has(agent)) return 'unavailable';
    return this.fetchedOnce.has(agent) ? 'available' : 'pending';
  }

  /**
   * The agents marked `required: true` whose card has not been fetched yet: readiness waits for
   * these only. Once fetched, a later failed catalog fetch does not pull the gateway out (the
   * card cache still serves the card it has; `cardsUnavailable` and the metric say it).
   */
  requiredPending(): string[] {
    return [...this.upstreams.values()]
      .filter((u) => u.config.required && !this.fetchedOnce.has(u.name))
      .map((u) => u.name);
  }

  private async load(upstream: Upstream): Promise<CachedCard> {
    const card = await this.cache.get(upstream, upstream.config.cardPath, PROBE_HEADERS);
    if (card.status !== 200 || !card.card)
      throw new Error(card.status !== 200 ? `card answered HTTP ${card.status}` : 'card is not a JSON object');
    this.fetchedOnce.add(upstream.name);
    this.lastError.delete(upstream.name);
    this.restPaths.set(upstream.name, restBasePaths(card.card, upstream.basePath));
    const known = this.known.get(upstream.name);
    this.known.set(upstream.name, {
      cached: card,
      at: Date.now(),
      rendered: known?.cached === card ? known.rendered : undefined,
    });
    return card;
  }

  private async probe(upstream: Upstream): Promise<void> {
    try {
      await this.load(upstream);
      this.log.info({ agent: upstream.name }, 'agent card fetched');
    } catch (err) {
      const message = (err as Error).message;
      if (this.lastError.get(upstream.name) !== message)
        this.log.warn({ agent: upstream.name, err: message }, 'agent card not available yet; retrying');
      this.lastError.set(upstream.name, message);
      if (this.stopped) return;
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        void this.probe(upstream);
      }, this.retryMs);
      timer.unref();
      this.timers.add(timer);
    }
  }

  /** One catalog entry; fetches (or revalidates) the card as its cache rules say. */
  async status(upstream: Upstream, publicBase: string): Promise<AgentStatus> {
    const url = `${publicBase}/agents/${encodeURIComponent(upstream.name)}`;
    const entry: AgentStatus = { name: upstream.name, url: `${url}/`, upstream: upstream.config.url, reachable: false };
    if (upstream.config.hosts.length > 0) entry.hostUrls = hostUrls(publicBase, upstream.config.hosts);
    if (upstream.config.translate) entry.translate = upstream.config.translate;
    try {
      const recent = this.known.get(upstream.name);
      const cached =
        recent && Date.now() - recent.at < CATALOG_REUSE_MS && this.lastError.get(upstream.name) === undefined
          ? recent.cached
          : await this.load(upstream);
      const served = renderCard(cached, cached.from, url, this.security, undefined, this.signer);
      entry.reachable = true;
      if (cached.signature) entry.cardSignature = cached.signature;
      entry.card = this.parsed(upstream.name, cached, url, served.body);
      if (served.rewrite?.untouched.length) entry.untouchedInterfaces = served.rewrite.untouched;
    } catch (err) {
      entry.cardError = (err as Error).message;
      this.lastError.set(upstream.name, entry.cardError);
    }
    return entry;
  }

  /** One public catalog entry: `status` without what only operators may see. */
  async publicStatus(upstream: Upstream, publicBase: string): Promise<PublicAgentStatus> {
    // `cardSignature` stays on the admin side: its `why` may name the agent's keys.
    const { name, url, hostUrls, reachable, card } = await this.status(upstream, publicBase);
    return { name, url, ...(hostUrls ? { hostUrls } : {}), ready: reachable, ...(card ? { card } : {}) };
  }

  /** The served card as an object, parsed once per card and public URL. */
  private parsed(agent: string, cached: CachedCard, publicUrl: string, body: Buffer): Record<string, unknown> {
    const known = this.known.get(agent);
    if (known?.cached === cached && known.rendered?.publicUrl === publicUrl && known.rendered.body === body)
      return known.rendered.card;
    const card = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
    if (known?.cached === cached) known.rendered = { publicUrl, body, card };
    return card;
  }
}

/**
 * Where an agent's `hosts` are reached, for the catalogs: each host at the root, with the scheme
 * and port of the gateway's public URL (the same listener serves them). IPv6 literals bracketed.
 */
function hostUrls(publicBase: string, hosts: readonly string[]): string[] {
  const base = new URL(publicBase);
  const port = base.port ? `:${base.port}` : '';
  return hosts.map((h) => `${base.protocol}//${h.includes(':') ? `[${h}]` : h}${port}/`);
}
