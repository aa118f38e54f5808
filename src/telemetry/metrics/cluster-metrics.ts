/**
 * Metrics in worker mode (`workers` > 1, src/cluster/): each worker's registry is read as JSON
 * (`registry.getMetricsAsJSON()`, carried over IPC) and the primary sums them into one exposition
 * with prom-client's AggregatorRegistry, each family by its `aggregator` (`sum` for counters and
 * histograms, including the hand-written cells of metric-cells.ts; prom-client's process metrics
 * bring their own). Here because only src/telemetry/ imports prom-client (principle 7).
 *
 * Why not `AggregatorRegistry#clusterMetrics()`: it asks every connected worker, also one still
 * starting (whose answer never comes: the scrape then fails after 5 s), and answers nothing when
 * one worker is slow. src/cluster/metrics.ts asks the workers that are up, with its own timeout,
 * and aggregates what came back.
 */
import { AggregatorRegistry, type Registry } from 'prom-client';

/** What one registry answers: prom-client's `MetricObjectWithValues[]`, opaque outside this folder. */
export type RegistryJson = readonly unknown[];

export function registryJson(registry: Registry): () => Promise<RegistryJson> {
  return () => registry.getMetricsAsJSON();
}

/** The text exposition of the workers' registries summed together. */
export async function aggregateExposition(
  perWorker: readonly RegistryJson[],
): Promise<{ readonly contentType: string; readonly text: string }> {
  const aggregated = AggregatorRegistry.aggregate(perWorker as Parameters<typeof AggregatorRegistry.aggregate>[0]);
  return { contentType: aggregated.contentType, text: await aggregated.metrics() };
}
