/**
 * What the console keeps across reloads (src/gateway/generation.ts `Shared`): the stats observer
 * and the live feed hub, made once in src/gateway/gateway.ts; a reload hands them the new agent list and
 * feed limits (src/reload/apply.ts).
 */
import type { GatewayConfig } from '../config/schema.js';
import { ConsoleStats } from './stats.js';
import { FeedHub } from './feed.js';

export interface ConsoleParts {
  readonly stats: ConsoleStats;
  readonly feed: FeedHub;
  /** Follows a reload: agents to count, feed limits. */
  configure(config: GatewayConfig): void;
}

export function createConsoleParts(config: GatewayConfig): ConsoleParts {
  const stats = new ConsoleStats(Object.keys(config.agents));
  const feed = new FeedHub(config.console.feed);
  return {
    stats,
    feed,
    configure: (next) => {
      stats.setAgents(Object.keys(next.agents));
      feed.configure(next.console.feed);
    },
  };
}
