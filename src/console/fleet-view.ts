/**
 * `GET /console/api/fleet` (src/console/api-types.ts FleetView): per configured agent, the card
 * registry's status (src/cards/registry.ts) and what the card advertises (card-protocols.ts), the
 * stats window (stats.ts), and tracked tasks by state from the task store's census
 * (src/tasks/tracker.ts; a `view`: every replica gets it, unlike the gauges' census), and each
 * replica's health for agents configured with `upstreams`.
 */
import type { Upstream } from '../transport/upstream.js';
import type { CardRegistry } from '../cards/registry.js';
import type { TaskCensus, TaskTracker } from '../tasks/tracker.js';
import type { FleetAgent, FleetReplica, FleetView } from './api-types.js';
import type { ConsoleStats } from './stats.js';
import { cardProtocols } from './card-protocols.js';

export interface FleetSources {
  readonly upstreams: ReadonlyMap<string, Upstream>;
  readonly registry: CardRegistry;
  readonly publicBase: string;
  readonly tracker: TaskTracker;
  readonly stats: ConsoleStats;
}

export async function fleetView(deps: FleetSources): Promise<FleetView> {
  const upstreams = [...deps.upstreams.values()];
  const [statuses, census] = await Promise.all([
    Promise.all(upstreams.map((u) => deps.registry.status(u, deps.publicBase))),
    censusOf(deps.tracker, [...deps.upstreams.keys()]),
  ]);
  const agents: FleetAgent[] = [];
  for (const status of statuses) {
    const window = deps.stats.window(status.name);
    if (window === undefined) continue;
    const { unreachableLately, ...counts } = window;
    agents.push({
      name: status.name,
      reachable: status.reachable && !unreachableLately,
      ...(status.cardError !== undefined ? { cardError: status.cardError } : {}),
      ...(status.cardSignature ? { cardSignature: status.cardSignature.result } : {}),
      ...cardProtocols(status.card),
      ...counts,
      tasksByState: statesOf(census, status.name),
      ...replicasOf(deps.upstreams.get(status.name)),
    });
  }
  return { at: Date.now(), windowMinutes: deps.stats.windowMinutes, agents };
}

/** Only agents configured with `upstreams` have replicas to show. */
function replicasOf(upstream: Upstream | undefined): { replicas?: FleetReplica[] } {
  if (!upstream?.config.replicated) return {};
  const replicas = upstream.replicas.map(({ url, health }) => ({
    url,
    state: health.state,
    drained: health.drained,
    outstanding: health.outstanding,
  }));
  return { replicas };
}

async function censusOf(tracker: TaskTracker, agents: readonly string[]): Promise<TaskCensus | undefined> {
  const result = await tracker.store.census(agents, Date.now(), 'view').catch(() => undefined);
  if (result === undefined) return undefined;
  tracker.emit(result.events); // evictions, as the metrics' census passes them on
  return result.census;
}

function statesOf(census: TaskCensus | undefined, agent: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [state, { count }] of census?.get(agent) ?? []) if (count > 0) out[state] = count;
  return out;
}
