/**
 * What the reload machinery needs of a config generation, and nothing more: the composition
 * root (src/gateway/generation.ts) builds generations, reload/ only swaps, retires and releases
 * them (docs/ARCHITECTURE.md, "Config generations and reload").
 */
import type { GatewayConfig } from '../config/schema.js';
import type { Exchange } from '../exchange/exchange.js';

export interface LiveGeneration {
  readonly config: GatewayConfig;
  /** Exchanges in flight on this generation (a retired one is released once it is empty). */
  readonly inFlight: Iterable<Exchange> & { readonly size: number };
  /** The agents' names, for the log line when a retired generation is released. */
  readonly upstreams: ReadonlyMap<string, unknown>;
  /** The card registry: readiness carried over, card retries started and stopped. */
  readonly registry: {
    carryOver(previous: LiveGeneration['registry']): void;
    start(): void;
    stop(): void;
  };
  /** The replicas' health checks (src/fleet/health-monitor.ts): run while the generation is current. */
  readonly health?: { carryOver(previous: object | undefined): void; start(): void; stop(): void };
}

/** Closes what a generation holds (its pools, channels, timers). */
export type ReleaseGeneration<G extends LiveGeneration> = (generation: G) => Promise<void>;
