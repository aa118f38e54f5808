/**
 * The a2a_replica_* families (src/telemetry/metrics/replica-metrics.ts): gauges read from the
 * replicas at scrape time (a replica gone from the config leaves no series), counters fed by the
 * health monitor's events, and how several workers' registries aggregate (healthy by min, state
 * by max, outstanding summed, counters summed).
 */
import { describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import { createMetrics } from '../../../src/telemetry/metrics/metrics.js';
import type { ReplicaView } from '../../../src/telemetry/metrics/replica-metrics.js';
import { aggregateExposition, registryJson } from '../../../src/telemetry/metrics/cluster-metrics.js';

const A = 'http://10.0.0.1:9000';
const B = 'http://10.0.0.2:9000';

function worker(views: ReplicaView[]) {
  const registry = new Registry();
  const metrics = createMetrics(registry, { agents: ['echo'], processMetrics: false, replicas: () => views });
  return { registry, metrics, views };
}

const lines = (text: string, family: string) => text.split('\n').filter((l) => l.startsWith(`${family}{`));

describe('replica metrics', () => {
  it('reads the replicas at each scrape: state, healthy, outstanding; a removed replica leaves no series', async () => {
    const w = worker([
      { agent: 'echo', replica: A, state: 'healthy', outstanding: 3 },
      { agent: 'echo', replica: B, state: 'ejected', outstanding: 0 },
    ]);
    let text = await w.registry.metrics();
    expect(lines(text, 'a2a_replica_healthy')).toEqual([
      `a2a_replica_healthy{agent="echo",replica="${A}"} 1`,
      `a2a_replica_healthy{agent="echo",replica="${B}"} 0`,
    ]);
    expect(text).toContain(`a2a_replica_state{agent="echo",replica="${B}",state="ejected"} 1`);
    expect(text).toContain(`a2a_replica_state{agent="echo",replica="${B}",state="healthy"} 0`);
    expect(text).toContain(`a2a_replica_outstanding{agent="echo",replica="${A}"} 3`);
    w.views.splice(1, 1);
    text = await w.registry.metrics();
    expect(text).not.toContain(B);
  });

  it('counts ejections and failed checks from the events', async () => {
    const w = worker([]);
    w.metrics.replicaEvents.changed('echo', A, { to: 'ejected' });
    w.metrics.replicaEvents.changed('echo', A, { to: 'healthy' });
    w.metrics.replicaEvents.checkFailed('echo', A);
    w.metrics.replicaEvents.checkFailed('echo', A);
    w.metrics.replicaEvents.checkFailed('unknown', A);
    const text = await w.registry.metrics();
    expect(text).toContain(`a2a_replica_ejections_total{agent="echo",replica="${A}"} 1`);
    expect(text).toContain(`a2a_replica_health_check_failures_total{agent="echo",replica="${A}"} 2`);
    expect(text).toContain(`a2a_replica_health_check_failures_total{agent="other",replica="${A}"} 1`);
  });

  it('aggregates across workers: healthy by min, state by max, outstanding and counters summed', async () => {
    const one = worker([{ agent: 'echo', replica: A, state: 'healthy', outstanding: 2 }]);
    const two = worker([{ agent: 'echo', replica: A, state: 'unhealthy', outstanding: 5 }]);
    for (const w of [one, two]) w.metrics.replicaEvents.checkFailed('echo', A);
    const { text } = await aggregateExposition([
      await registryJson(one.registry)(),
      await registryJson(two.registry)(),
    ]);
    expect(text).toContain(`a2a_replica_healthy{agent="echo",replica="${A}"} 0`);
    expect(text).toContain(`a2a_replica_state{agent="echo",replica="${A}",state="healthy"} 1`);
    expect(text).toContain(`a2a_replica_state{agent="echo",replica="${A}",state="unhealthy"} 1`);
    expect(text).toContain(`a2a_replica_outstanding{agent="echo",replica="${A}"} 7`);
    expect(text).toContain(`a2a_replica_health_check_failures_total{agent="echo",replica="${A}"} 2`);
  });
});
