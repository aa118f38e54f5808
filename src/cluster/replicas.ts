/**
 * `/admin/replicas` and the drain endpoints in worker mode: each worker checks the replicas and
 * keeps their drain on its own, so a worker asks the primary, which asks every worker that is up
 * (src/cluster/primary.ts). The list is each worker's (`workers: [{ pid, agents }]`); a drain is
 * applied by every worker, and answered as the first worker's answer when all agreed, or the
 * refusal when one refused (they run one config, so they refuse alike).
 */
import type { DrainResult, ReplicaSources } from '../control/replicas.js';

export function replicasOfAllWorkers(askPrimary: (topic: string, body?: unknown) => Promise<unknown>): ReplicaSources {
  return {
    list: async () => (await askPrimary('replicas')) as object,
    drain: async (agent, url, drained) => {
      const answers = (await askPrimary('drain-all', { agent, url, drained })) as DrainResult[];
      const refused = answers.find((a) => !a.ok);
      if (refused) return refused;
      const first = answers[0];
      if (!first?.ok) return { ok: false, message: '(cluster): no worker answered' };
      return { ok: true, body: { ...first.body, workers: answers.length } };
    },
  };
}
