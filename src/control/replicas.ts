/**
 * The replicas on the admin listener (docs/operations.md "Replicas"): `GET /admin/replicas` lists
 * every agent's replicas as this gateway process sees them (health is per process), and
 * `POST /admin/agents/{name}/replicas/drain` / `…/undrain` with `{ "url": "…" }` take a replica
 * out of (or back into) new conversations; its tasks keep their affinity. A drain set here lasts
 * until the next reload or restart, which go back to the config's `drain`.
 */
import type { Context, Hono } from 'hono';
import type { Upstream } from '../transport/upstream.js';
import type { Replica } from '../transport/replica.js';
import { errorAnswer } from '../errors/control-answer.js';

/** One replica as `GET /admin/replicas` shows it. */
export function replicaStatus(replica: Replica): object {
  const h = replica.health;
  const last = h.lastCheck;
  return {
    url: replica.url,
    ...(replica.grpc ? { grpc: replica.grpc } : {}),
    state: h.state,
    drained: h.drained,
    outstanding: h.outstanding,
    lastCheck: last ? { at: new Date(last.at).toISOString(), ok: last.ok, detail: last.detail } : null,
    consecutiveCheckFailures: h.checkFailures,
    consecutiveCheckPasses: h.checkPasses,
    consecutiveCallFailures: h.callFailures,
  };
}

export function replicasReport(upstreams: ReadonlyMap<string, Upstream>): object {
  return {
    agents: [...upstreams.values()].map((u) => ({
      agent: u.name,
      replicated: u.config.replicated,
      healthChecks: u.config.replicated && u.config.health.enabled,
      replicas: u.replicas.map(replicaStatus),
    })),
  };
}

/** The outcome of a drain or undrain: the replica as it is now, or why there is none. */
export type DrainResult =
  { readonly ok: true; readonly body: object } | { readonly ok: false; readonly message: string };

/** Sets one replica's drain in this process (also what a cluster worker runs when asked). */
export function drainReplica(
  upstreams: ReadonlyMap<string, Upstream>,
  agent: string,
  url: string,
  drained: boolean,
): DrainResult {
  const upstream = upstreams.get(agent);
  if (!upstream) return { ok: false, message: `no agent named ${JSON.stringify(agent)} is configured` };
  const replica = upstream.replicas.find((r) => r.url === url.replace(/\/+$/, ''));
  if (!replica) {
    const known = upstream.replicas.map((r) => r.url).join(', ');
    return { ok: false, message: `agent ${agent} has no replica ${JSON.stringify(url)}; its replicas: ${known}` };
  }
  replica.health.drained = drained;
  return { ok: true, body: { agent, ...replicaStatus(replica) } };
}

/**
 * In a cluster worker (`workers` > 1) the list and the drain cover every worker, through the
 * primary (src/cluster/worker.ts): health and drain are per process.
 */
export interface ReplicaSources {
  readonly list: () => Promise<object>;
  readonly drain: (agent: string, url: string, drained: boolean) => Promise<DrainResult>;
}

export function mountReplicas(
  app: Hono,
  upstreams: () => ReadonlyMap<string, Upstream>,
  sources: ReplicaSources | undefined,
): void {
  app.get('/admin/replicas', async (c) => c.json(sources ? await sources.list() : replicasReport(upstreams())));
  const drain = (drained: boolean) => async (c: Context) => {
    const url = await urlOf(c);
    if (url === undefined)
      return errorAnswer(
        c,
        400,
        'INVALID_ARGUMENT',
        'the body must be JSON: { "url": "<a replica URL of the agent>" }',
      );
    const agent = c.req.param('name')!;
    const result = sources ? await sources.drain(agent, url, drained) : drainReplica(upstreams(), agent, url, drained);
    return result.ok ? c.json(result.body) : errorAnswer(c, 404, 'NOT_FOUND', result.message);
  };
  app.post('/admin/agents/:name/replicas/drain', drain(true));
  app.post('/admin/agents/:name/replicas/undrain', drain(false));
}

async function urlOf(c: Context): Promise<string | undefined> {
  const body: unknown = await c.req.json().catch(() => undefined);
  const url = (body as { url?: unknown } | undefined)?.url;
  return typeof url === 'string' && url !== '' ? url : undefined;
}
