/**
 * Keeps each agent's card known for the catalog (`GET /agents`) and readiness (`GET /readyz`):
 * fetched at start-up with `A2A-Version: 1.0` (the card a 1.0 client sees, wire-reference §3),
 * retried every `cards.retry` until it has been fetched once, then refreshed through the cache.
 */
import type { Upstream } from '../transport/upstream.js';
import type { CardCache, CachedCard } from './cache.js';
import { renderCard } from './serve.js';
import type { Logger } from '../log.js';

export interface AgentStatus {
  name: string;
  /** Where clients should point their A2A client (note the trailing slash). */
  url: string;
  upstream: string;
  reachable: boolean;
  card?: Record<string, unknown>;
  cardError?: string;
  /** Interface URLs the rewrite left alone (they do not live under the agent's URL). */
  untouchedInterfaces?: Array<{ field: string; url: string; why: string }>;
}

const PROBE_HEADERS = { 'a2a-version': '1.0' };

export class CardRegistry {
  private readonly fetchedOnce = new Set<string>();
  private readonly lastError = new Map<string, string>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private stopped = false;

  constructor(
    private readonly upstreams: ReadonlyMap<string, Upstream>,
    private readonly cache: CardCache,
    private readonly retryMs: number,
    private readonly log: Logger,
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

  ready(): boolean {
    return this.fetchedOnce.size === this.upstreams.size;
  }

  pending(): string[] {
    return [...this.upstreams.keys()].filter((n) => !this.fetchedOnce.has(n));
  }

  private async load(upstream: Upstream): Promise<CachedCard> {
    const card = await this.cache.get(upstream, upstream.config.cardPath, PROBE_HEADERS);
    if (card.status !== 200 || !card.card)
      throw new Error(card.status !== 200 ? `card answered HTTP ${card.status}` : 'card is not a JSON object');
    this.fetchedOnce.add(upstream.name);
    this.lastError.delete(upstream.name);
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
    try {
      const cached = await this.load(upstream);
      const served = renderCard(cached, upstream.config.url, url);
      entry.reachable = true;
      entry.card = served.rewrite?.card;
      if (served.rewrite?.untouched.length) entry.untouchedInterfaces = served.rewrite.untouched;
    } catch (err) {
      entry.cardError = (err as Error).message;
      this.lastError.set(upstream.name, entry.cardError);
    }
    return entry;
  }
}
