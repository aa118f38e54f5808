/**
 * The live config generations (built by src/gateway/generation.ts): the current one, which new requests get, and the
 * retired ones still finishing exchanges (a stream may run for hours). Both listeners hold this
 * object and read `current` once per request (src/gateway/server.ts), so a reload is one assignment and
 * the forwarding path pays one property read. A retired generation is watched from a timer, off
 * the forwarding path (the pipeline only adds to and removes from its `inFlight`), and its
 * pools are closed once its last exchange has finished; shutdown drains and releases them all.
 */
import type { Exchange } from '../exchange/exchange.js';
import type { Logger } from '../log.js';
import type { LiveGeneration, ReleaseGeneration } from './lifetime.js';

/** How often retired generations are checked for their last exchange. */
const RETIRED_CHECK_MS = 100;

export class Generations<G extends LiveGeneration> {
  private readonly retired = new Set<G>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    public current: G,
    private readonly release: ReleaseGeneration<G>,
    private readonly log: Logger,
  ) {}

  /** Makes `next` current; the one before keeps its exchanges and is released once they finish. */
  swap(next: G): void {
    const previous = this.current;
    next.registry.carryOver(previous.registry);
    next.registry.start();
    next.health?.carryOver(previous.health);
    next.health?.start();
    this.current = next;
    previous.registry.stop(); // no more card retries; fetches under way still have their pools
    previous.health?.stop(); // its checkers would only duplicate the new ones
    this.retired.add(previous);
    this.timer ??= setInterval(() => this.releaseFinished(), RETIRED_CHECK_MS).unref();
  }

  /** Every exchange in flight, on any generation. */
  inFlight(): Exchange[] {
    return [...this.current.inFlight, ...[...this.retired].flatMap((g) => [...g.inFlight])];
  }

  /** Retired generations whose exchanges have all finished release their pools. */
  private releaseFinished(): void {
    for (const generation of this.retired) {
      if (generation.inFlight.size > 0) continue;
      this.retired.delete(generation);
      void this.release(generation).then(
        () => this.log.info({ agents: [...generation.upstreams.keys()] }, 'previous config released'),
        (err: Error) => this.log.warn({ err: err.message }, 'releasing the previous config failed'),
      );
    }
    if (this.retired.size === 0) this.stopWatching();
  }

  private stopWatching(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Shutdown, once traffic has drained: every generation's timers and pools. */
  async releaseAll(): Promise<void> {
    this.stopWatching();
    const all = [this.current, ...this.retired];
    this.retired.clear();
    await Promise.all(all.map(this.release));
  }
}
