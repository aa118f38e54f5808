/**
 * /metrics in worker mode: a scrape lands on whichever worker accepted it, and that worker asks
 * the primary (`metrics`), which asks every worker that is up for its registry as JSON
 * (`local-metrics`) and sums them (src/telemetry/metrics/cluster-metrics.ts). So counts are the
 * whole cluster's: after N requests, `a2a_requests_total` summed over its series is N.
 */
import { aggregateExposition, type RegistryJson } from '../telemetry/metrics/cluster-metrics.js';

/** The exposition as it crosses IPC (a Response cannot). */
interface Exposition {
  readonly contentType: string;
  readonly text: string;
}

/** In the worker: the admin app's metrics handler (src/control/admin-app.ts), served from the primary. */
export function askPrimaryForMetrics(askPrimary: (topic: string) => Promise<unknown>): () => Promise<Response> {
  return async () => {
    try {
      const { contentType, text } = (await askPrimary('metrics')) as Exposition;
      return new Response(text, { status: 200, headers: { 'content-type': contentType } });
    } catch {
      // As src/telemetry/metrics/metrics-endpoint.ts answers a failed collection.
      return new Response('metrics collection failed\n', {
        status: 500,
        headers: { 'content-type': 'text/plain; charset=utf-8' },
      });
    }
  };
}

/** In the primary: the workers' registries (those that answered) summed into one exposition. */
export async function clusterExposition(askWorkers: () => Promise<readonly unknown[]>): Promise<Exposition> {
  const registries = (await askWorkers()) as RegistryJson[];
  return aggregateExposition(registries);
}
