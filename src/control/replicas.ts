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

export function mountReplicas(app: Hono, upstreams: () => ReadonlyMap<string, Upstream>): void {
  app.get('/admin/replicas', (c) => c.json(replicasReport(upstreams())));
  app.post('/admin/agents/:name/replicas/drain', (c) => setDrained(c, upstreams(), true));
  app.post('/admin/agents/:name/replicas/undrain', (c) => setDrained(c, upstreams(), false));
}

async function setDrained(c: Context, upstreams: ReadonlyMap<string, Upstream>, drained: boolean): Promise<Response> {
  const name = c.req.param('name')!;
  const upstream = upstreams.get(name);
  if (!upstream) return errorAnswer(c, 404, 'NOT_FOUND', `no agent named ${JSON.stringify(name)} is configured`);
  const url = await urlOf(c);
  if (url === undefined)
    return errorAnswer(c, 400, 'INVALID_ARGUMENT', 'the body must be JSON: { "url": "<a replica URL of the agent>" }');
  const replica = upstream.replicas.find((r) => r.url === url.replace(/\/+$/, ''));
  if (!replica) {
    const known = upstream.replicas.map((r) => r.url).join(', ');
    return errorAnswer(
      c,
      404,
      'NOT_FOUND',
      `agent ${name} has no replica ${JSON.stringify(url)}; its replicas: ${known}`,
    );
  }
  replica.health.drained = drained;
  return c.json({ agent: name, ...replicaStatus(replica) });
}

async function urlOf(c: Context): Promise<string | undefined> {
  const body: unknown = await c.req.json().catch(() => undefined);
  const url = (body as { url?: unknown } | undefined)?.url;
  return typeof url === 'string' && url !== '' ? url : undefined;
}
