/**
 * The fleet's exchange observer: a placed call holds its replica (and its caller's share of the
 * agent's calls, src/transport/client-shares.ts) until the exchange finishes
 * (the picker's measure, replica-pick.ts), and its outcome is the replica's passive health signal
 * (replica-health.ts `called`). Pins are written from the tracker's namings (pins.ts) for agents with several
 * replicas: with one there is nothing to choose.
 */
import type { Exchange, ExchangeObserver } from '../exchange/exchange.js';
import type { Naming } from '../tasks/tracker.js';
import type { Pins } from './pins.js';

/**
 * The gateway errors that say the replica itself failed: no connection, or the connection cut
 * under the answer. A timeout is not among them (the client's deadline, or a long task), nor an
 * answer the gateway found invalid (the replica answered).
 */
const REPLICA_FAILURES: ReadonlySet<string> = new Set(['UPSTREAM_UNREACHABLE', 'UPSTREAM_RESET']);

/**
 * What a finished call says about its replica: `failure` (no connection, a reset, a 5xx),
 * `ok` (the replica answered, 4xx included: the caller's mistake, not the replica's), or
 * nothing (the client left first, or the gateway answered without the replica).
 */
export function outcomeOf(exchange: Exchange): 'ok' | 'failure' | undefined {
  const { record, replicaStatus } = exchange;
  if (record.outcome === 'client-gone') return undefined;
  if (record.outcome === 'upstream-error' && REPLICA_FAILURES.has(record.error?.reason ?? '')) return 'failure';
  if (replicaStatus === undefined) return undefined;
  return replicaStatus >= 500 ? 'failure' : 'ok';
}

export function fleetObserver(): ExchangeObserver {
  return {
    name: 'fleet',
    onFinish(exchange) {
      // The caller's share of the agent's calls (pipeline step 3c), given back exactly once: finish is.
      if (exchange.shareKey !== undefined) exchange.upstream.shares?.release(exchange.shareKey);
      const replica = exchange.replica;
      if (replica === undefined) return;
      replica.health.outstanding--;
      // An agent given as `url` has no other replica to send calls to: nothing to eject it from.
      if (!exchange.upstream.config.replicated) return;
      const outcome = outcomeOf(exchange);
      if (outcome === undefined) return;
      const detail = exchange.record.error?.reason ?? `HTTP ${exchange.replicaStatus}`;
      replica.health.called(outcome === 'ok', detail);
    },
  };
}

/** Pins what an answer named to the replica that gave it, for agents configured with `upstreams`. */
export function pinNamings(pins: Pins, replicated: (agent: string) => boolean): (naming: Naming) => void {
  return ({ agent, replica, taskId, contextId }) => {
    if (replica === undefined || !replicated(agent)) return;
    if (taskId !== undefined) pins.pin(agent, 'task', taskId, replica);
    if (contextId !== undefined) pins.pin(agent, 'context', contextId, replica);
  };
}
