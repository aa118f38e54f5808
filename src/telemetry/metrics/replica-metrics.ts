/**
 * The replicas' health families (docs/fleet.md "Health"): gauges read at scrape time from the
 * current generation's replicas (`ReplicaView`), counters fed by the health monitor's events
 * (src/fleet/health-monitor.ts). Health is per gateway process, so the gauges say how cluster
 * workers aggregate them: healthy by `min` (1 only when every worker sees the replica healthy),
 * the state by `max` (1 when some worker sees it in that state), outstanding calls by `sum`.
 * The `replica` label is a configured URL: bounded by the config (`upstreams` holds at most 64).
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import { METRICS, REPLICA_STATES } from './metric-names.js';
import type { Labeler } from './labels.js';

/** One replica as the gauges read it. */
export interface ReplicaView {
  readonly agent: string;
  readonly replica: string;
  readonly state: string;
  readonly outstanding: number;
}

/** What the health monitor tells telemetry (structurally its HealthEvents). */
export interface ReplicaEvents {
  changed(agent: string, replica: string, change: { readonly to: string }): void;
  checkFailed(agent: string, replica: string): void;
}

export function replicaMetrics(
  registers: Registry[],
  labels: Labeler,
  replicas: () => Iterable<ReplicaView>,
): ReplicaEvents {
  const labelNames = ['agent', 'replica'];
  const keyOf = (view: ReplicaView) => ({ agent: labels.agent(view.agent), replica: view.replica });
  // Each gauge reads the replicas when scraped and starts empty: a replica a reload removed
  // leaves no stale series behind.
  new Gauge({
    ...METRICS.replicaHealthy,
    labelNames,
    registers,
    aggregator: 'min',
    collect() {
      this.reset();
      for (const view of replicas()) this.set(keyOf(view), view.state === 'healthy' ? 1 : 0);
    },
  });
  new Gauge({
    ...METRICS.replicaState,
    labelNames: [...METRICS.replicaState.labelNames],
    registers,
    aggregator: 'max',
    collect() {
      this.reset();
      for (const view of replicas())
        for (const state of REPLICA_STATES) this.set({ ...keyOf(view), state }, view.state === state ? 1 : 0);
    },
  });
  new Gauge({
    ...METRICS.replicaOutstanding,
    labelNames,
    registers,
    aggregator: 'sum',
    collect() {
      this.reset();
      for (const view of replicas()) this.set(keyOf(view), Math.max(0, view.outstanding));
    },
  });
  const ejections = new Counter({ ...METRICS.replicaEjections, labelNames, registers });
  const checkFailures = new Counter({ ...METRICS.replicaCheckFailures, labelNames, registers });
  return {
    changed(agent, replica, change) {
      if (change.to === 'ejected') ejections.inc({ agent: labels.agent(agent), replica });
    },
    checkFailed(agent, replica) {
      checkFailures.inc({ agent: labels.agent(agent), replica });
    },
  };
}
