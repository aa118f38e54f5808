/**
 * One keep-alive connection pool per agent. undici's Pool is used instead of node:http's Agent:
 * the forwarding benchmark (bench/RESULTS.md) decides between them; undici also gives per-pool
 * connect / headers / body-idle timeouts, which map one-to-one onto the agent's config.
 */
import { Pool } from 'undici';
import type { AgentConfig } from '../config/schema.js';

export interface Upstream {
  readonly name: string;
  /** `http://host:port` */
  readonly origin: string;
  /** The path the agent is mounted under ('' for the root), without a trailing slash. */
  readonly basePath: string;
  readonly pool: Pool;
  /** Configured extra headers, as [name, value] pairs. */
  readonly extraHeaders: ReadonlyArray<readonly [string, string]>;
  readonly config: AgentConfig;
}

export function createUpstream(name: string, config: AgentConfig): Upstream {
  const url = new URL(config.url);
  const pool = new Pool(url.origin, {
    connections: config.connections,
    connect: { timeout: config.timeouts.connect || undefined },
    // 0 disables undici's own timers: A2A puts no limit on a blocking send or a stream (wire-reference §5.1).
    headersTimeout: config.timeouts.headers,
    bodyTimeout: config.timeouts.bodyIdle,
    pipelining: 1,
  });
  return {
    name,
    origin: url.origin,
    basePath: url.pathname.replace(/\/+$/, ''),
    pool,
    extraHeaders: Object.entries(config.headers),
    config,
  };
}
