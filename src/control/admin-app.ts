/**
 * The admin listener's endpoints (hono), the operator plane apart from traffic: what
 * the gateway recorded (`/exchanges`, `/tasks/{agent}/{taskId}`), Prometheus metrics, the full
 * fleet catalog with each agent's own URL and the interfaces the rewrite left alone, liveness and
 * readiness, `POST /admin/reload` (re-read the config file), and the replicas' health and drain
 * (replicas.ts). All of it names the
 * fleet's insides, so with `admin.token` every request needs the token (admin-token.ts), and the
 * listener defaults to 127.0.0.1.
 */
import { Hono } from 'hono';
import type { Upstream } from '../transport/upstream.js';
import type { CardRegistry } from '../cards/registry.js';
import type { RecentExchanges, RecentQuery } from '../inspect/recent.js';
import { StoreUnavailable, type TaskTracker } from '../tasks/tracker.js';
import type { LastReload, ReloadReport } from '../reload/report.js';
import { mountHealthDetail } from './health.js';
import { answerMisses, errorAnswer } from '../errors/control-answer.js';
import { readExchangesQuery } from './exchanges-query.js';
import { requireAdminToken } from './admin-token.js';
import { guardAdminOrigin } from './admin-origin.js';
import { mountConsoleApi, type ConsoleApiDeps } from '../console/api.js';
import { mountReplicas, type ReplicaSources } from './replicas.js';

/** What the admin listener serves from elsewhere than this process: every worker's, in a cluster worker. */
export interface AdminSources {
  readonly metrics: () => Promise<Response>;
  readonly exchanges: (query: RecentQuery) => Promise<readonly object[]>;
  /** `/admin/replicas` and drain over every worker. */
  readonly replicas?: ReplicaSources;
}

export interface AdminDeps {
  readonly upstreams: ReadonlyMap<string, Upstream>;
  readonly registry: CardRegistry;
  /** The base of the agents' URLs at the gateway in the catalog: `publicUrl`, else the traffic listener's URL. */
  readonly publicBase: string;
  readonly isDraining: () => boolean;
  /** `/readyz` is 503 while this is false (state.redis.required). */
  readonly stateReady?: () => boolean;
  readonly recent: RecentExchanges;
  /** Where `/admin/replicas` and drain act, when not this process alone: every worker (src/cluster/). */
  readonly replicas?: ReplicaSources;
  /** Where `/exchanges` reads, when not `recent` alone: in a cluster worker, every worker's (src/cluster/worker.ts). */
  readonly exchanges?: (query: RecentQuery) => Promise<readonly object[]>;
  readonly tracker: TaskTracker;
  /** Prometheus exposition at `path`; absent when metrics are off. */
  readonly metrics?: { readonly path: string; readonly handler: () => Promise<Response> };
  /** `admin.token`: required of every request when set. */
  readonly token?: string;
  /** `admin.hosts`: host names the listener answers besides IP literals and `localhost` (admin-origin.ts). */
  readonly hosts?: readonly string[];
  /** What `POST /admin/reload` runs (GatewayOptions.reload); without it the route answers 501. */
  readonly reload?: () => Promise<ReloadReport>;
  /** The last reload, for `/readyz` (only here: the traffic listener's says ready or not, health.ts). */
  readonly lastReload?: () => LastReload | undefined;
  /** The console's data API (`/console/api/`, src/console/api.ts); absent when `console.enabled` is false. */
  readonly console?: ConsoleApiDeps;
}

export function createAdminApp(deps: AdminDeps): Hono {
  const app = new Hono();
  app.use('*', guardAdminOrigin(deps.hosts ?? [], deps.token === undefined));
  if (deps.token !== undefined) app.use('*', requireAdminToken(deps.token));
  mountHealthDetail(app, deps);
  if (deps.metrics) app.get(deps.metrics.path, deps.metrics.handler);
  const catalog = async () => {
    const upstreams = [...deps.upstreams.values()];
    return { agents: await Promise.all(upstreams.map((u) => deps.registry.status(u, deps.publicBase))) };
  };
  app.get('/agents', async (c) => c.json(await catalog()));
  app.get('/agents/', async (c) => c.json(await catalog()));
  mountRecords(app, deps);
  mountReload(app, deps.reload);
  mountReplicas(app, () => deps.upstreams, deps.replicas);
  if (deps.console) mountConsoleApi(app, deps.console);
  const metrics = deps.metrics ? `, ${deps.metrics.path}` : '';
  answerMisses(
    app,
    `the admin listener serves /healthz, /readyz, /agents, /exchanges, /tasks/{agent}/{taskId}${metrics}, POST /admin/reload, /admin/replicas, POST /admin/agents/{name}/replicas/drain|undrain${deps.console ? ', /console/api/…' : ''}`,
  );
  return app;
}

/** Re-reads the config: 200 with the report when applied, 422 with the key-path errors when refused. */
function mountReload(app: Hono, reload: AdminDeps['reload']): void {
  app.post('/admin/reload', async (c) => {
    if (!reload)
      return errorAnswer(c, 501, 'UNIMPLEMENTED', 'this gateway was started without a config file to reload');
    const report = await reload();
    return c.json(report, report.ok ? 200 : 422);
  });
}

/** What inspection and the task tracker recorded: shapes, ids, states, findings (no bodies). */
function mountRecords(app: Hono, deps: Pick<AdminDeps, 'recent' | 'exchanges' | 'tracker'>): void {
  app.get('/exchanges', async (c) => {
    const read = readExchangesQuery(c.req.queries());
    if (!read.ok) return errorAnswer(c, 400, 'INVALID_ARGUMENT', read.message);
    const { query } = read;
    const exchanges = deps.exchanges ? await deps.exchanges(query) : deps.recent.find(query);
    return c.json({ exchanges });
  });

  // One task's story across calls: states with their times, time waiting for input, duration.
  app.get('/tasks/:agent/:taskId', async (c) => {
    let story;
    try {
      story = await deps.tracker.store.get(c.req.param('agent'), c.req.param('taskId'));
    } catch (err) {
      if (!(err instanceof StoreUnavailable)) throw err;
      return errorAnswer(c, 503, 'STATE_UNAVAILABLE', err.message);
    }
    return story
      ? c.json(story)
      : errorAnswer(c, 404, 'NOT_FOUND', 'this task is not tracked (never seen, or forgotten)');
  });
}
