/**
 * One replica of an agent: its URL (the affinity key, the same on every gateway process and
 * across reloads), its two undici pools (unary calls and long-lived streams,
 * src/transport/upstream.ts) and its health as this process sees it (replica-health.ts).
 */
import type { Pool } from 'undici';
import type { ReplicaHealth } from './replica-health.js';

export interface Replica {
  /** The replica's base URL as configured, without a trailing slash: what affinity records. */
  readonly url: string;
  /** `http://host:port` */
  readonly origin: string;
  /** Unary calls (and card fetches, health checks). */
  readonly pool: Pool;
  /** Long-lived streams. */
  readonly streams: Pool;
  /** Where this replica serves gRPC, when configured (`upstreams[].grpc`). */
  readonly grpc: string | undefined;
  readonly health: ReplicaHealth;
}
