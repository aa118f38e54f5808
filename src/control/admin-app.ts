/**
 * The admin listener's endpoints (hono), the operator plane apart from traffic (issue #13): what
 * the gateway recorded (`/exchanges`, `/tasks/{agent}/{taskId}`), Prometheus metrics, the full
 * fleet catalog with each agent's own URL and the interfaces the rewrite left alone, and
 * liveness and readiness. All of it names the fleet's insides, so with `admin.token` every
 * request needs the token (admin-token.ts), and the listener defaults to 127.0.0.1.
 */
import { Hono } from 'hono';
import type { Upstream } from '../transport/upstream.js';
import type { CardRegistry } from '../cards/registry.js';
import type { RecentExchanges, RecentQuery } from '../inspect/recent.js';
import type { TaskTracker } from '../tasks/tracker.js';
import { mountHealth } from './health.js';
import { answerMisses, errorAnswer } from './answers.js';
import { requireAdminToken } from './admin-token.js';

export interface AdminDeps {
  readonly upstreams: ReadonlyMap<string, Upstream>;
  readonly registry: CardRegistry;
  /** The base of the agents' URLs at the gateway in the catalog: `publicUrl`, else the traffic listener's URL. */
  readonly publicBase: string;
  readonly isDraining: () => boolean;
  readonly recent: RecentExchanges;
  /** Where `/exchanges` reads, when not `recent` alone: in a cluster worker, every worker's (src/cluster/worker.ts). */
  readonly exchanges?: (query: RecentQuery) => Promise<readonly object[]>;
  readonly tracker: TaskTracker;
  /** Prometheus exposition at `path`; absent when metrics are off. */
  readonly metrics?: { readonly path: string; readonly handler: () => Promise<Response> };
  /** `admin.token`: required of every request when set. */
  readonly token?: string;
}

export function createAdminApp(deps: AdminDeps): Hono {
  const app = new Hono();
  if (deps.token !== undefined) app.use('*', requireAdminToken(deps.token));
  mountHealth(app, deps);
  if (deps.metrics) app.get(deps.metrics.path, deps.metrics.handler);
  const catalog = async () => {
    const upstreams = [...deps.upstreams.values()];
    return { agents: await Promise.all(upstreams.map((u) => deps.registry.status(u, deps.publicBase))) };
  };
  app.get('/agents', async (c) => c.json(await catalog()));
  app.get('/agents/', async (c) => c.json(await catalog()));
  mountRecords(app, deps);
  const metrics = deps.metrics ? `, ${deps.metrics.path}` : '';
  answerMisses(
    app,
    `the admin listener serves /healthz, /readyz, /agents, /exchanges, /tasks/{agent}/{taskId}${metrics}`,
  );
  return app;
}

/** What inspection and the task tracker recorded: shapes, ids, states, findings (no bodies). */
function mountRecords(app: Hono, deps: Pick<AdminDeps, 'recent' | 'exchanges' | 'tracker'>): void {
  app.get('/exchanges', async (c) => {
    const limit = Number(c.req.query('limit') ?? 50);
    const query: RecentQuery = {
      agent: c.req.query('agent'),
      messageId: c.req.query('messageId'),
      taskId: c.req.query('taskId'),
      limit: Number.isFinite(limit) ? limit : 50,
    };
    const exchanges = deps.exchanges ? await deps.exchanges(query) : deps.recent.find(query);
    return c.json({ exchanges });
  });

  // One task's story across calls: states with their times, time waiting for input, duration.
  app.get('/tasks/:agent/:taskId', (c) => {
    const story = deps.tracker.store.get(c.req.param('agent'), c.req.param('taskId'));
    return story
      ? c.json(story)
      : errorAnswer(c, 404, 'NOT_FOUND', 'this task is not tracked (never seen, or forgotten)');
  });
}
