/**
 * Two keep-alive connection pools per agent: one for calls that answer and are done (`pool`), one
 * for long-lived streams (`streams`: SendStreamingMessage, SubscribeToTask, any request that
 * asks for `text/event-stream`). A stream holds its connection for as long as it is open, so in
 * one shared pool a few hundred open streams would leave unary calls waiting forever (principle
 * 19); apart, each kind only waits for its own. undici's Pool is used instead of node:http's
 * Agent: the forwarding benchmark (bench/RESULTS.md) decides between them; undici also gives
 * per-pool connect / headers / body-idle timeouts, which map one-to-one onto the agent's config.
 */
import { Pool, buildConnector } from 'undici';
import type { AgentConfig } from '../config/schema.js';
import type { ReplicaConfig } from '../config/fleet-schema.js';
import type { Replica } from './replica.js';
import { ReplicaHealth } from './replica-health.js';
import { ReplicaPicker } from './replica-pick.js';
import { ClientShares, defaultCallsPerClient } from './client-shares.js';

export interface Upstream {
  readonly name: string;
  /** The path the agent is mounted under ('' for the root), without a trailing slash; the same on every replica. */
  readonly basePath: string;
  /** The agent's replicas (`upstreams`, or the one `url`), each with its own pools (src/fleet/replica.ts). */
  readonly replicas: readonly Replica[];
  /** Where new conversations go (src/fleet/pick.ts). */
  readonly picker: ReplicaPicker;
  /** Configured extra headers, as [name, value] pairs. */
  readonly extraHeaders: ReadonlyArray<readonly [string, string]>;
  readonly config: AgentConfig;
  /** Each caller's share of the unary calls in flight (`limits.callsPerClient`); undefined: off (0). */
  readonly shares: ClientShares | undefined;
}

/**
 * True while undici is ending a response because its connection was reset. undici takes a reset
 * during a close-delimited body (no Content-Length, not chunked) for the body's normal end and
 * completes the response (client-h1.js `onHttpSocketError`) — but a reset is a cut, not an end
 * (RFC 9112 §6.3: only a clean close ends such a body). The connector puts a listener ahead of
 * undici's on every socket; undici then completes the response synchronously inside the same
 * 'error' event, so the forwarder asks this from `onResponseEnd`.
 */
let resetting = false;

export function endingByReset(): boolean {
  return resetting;
}

function markReset(err: Error & { code?: string }): void {
  if (err.code !== 'ECONNRESET') return;
  resetting = true;
  queueMicrotask(() => (resetting = false));
}

function connector(config: AgentConfig): buildConnector.connector {
  // TCP keepalive probes notice an agent host that died without closing its connections.
  const connect = buildConnector({
    timeout: config.timeouts.connect || undefined,
    keepAlive: true,
    keepAliveInitialDelay: 30_000,
  });
  return (options, callback) =>
    connect(options, (err, socket) => {
      socket?.prependListener('error', markReset);
      callback(err, socket as never);
    });
}

function createPool(origin: string, config: AgentConfig, connections: number): Pool {
  return new Pool(origin, {
    connections,
    connect: connector(config),
    // 0 disables undici's own timers: A2A puts no limit on a blocking send or a stream (wire-reference §5.1).
    headersTimeout: config.timeouts.headers,
    bodyTimeout: config.timeouts.bodyIdle,
    pipelining: 1,
  });
}

function createReplica(replica: ReplicaConfig, config: AgentConfig): Replica {
  const { origin } = new URL(replica.url);
  return {
    url: replica.url,
    origin,
    pool: createPool(origin, config, config.connections),
    streams: createPool(origin, config, config.streamConnections),
    grpc: replica.grpc,
    health: new ReplicaHealth(replica.drain, config.health),
  };
}

export function createUpstream(name: string, config: AgentConfig): Upstream {
  const replicas = config.upstreams.map((replica) => createReplica(replica, config));
  return {
    name,
    basePath: new URL(config.url).pathname.replace(/\/+$/, ''),
    replicas,
    picker: new ReplicaPicker(replicas),
    extraHeaders: Object.entries(config.headers),
    config,
    shares: sharesOf(config),
  };
}

function sharesOf(config: AgentConfig): ClientShares | undefined {
  const limit = config.limits.callsPerClient ?? defaultCallsPerClient(config.connections);
  return limit > 0 ? new ClientShares(limit) : undefined;
}

export async function closeUpstream(upstream: Upstream): Promise<void> {
  await Promise.all(upstream.replicas.flatMap((r) => [r.pool.destroy(), r.streams.destroy()]));
}
