/**
 * The gateway's own endpoints (hono): liveness, readiness and the fleet catalog. They are not on
 * the forwarding path, so the framework's per-request cost does not matter here.
 */
import { Hono } from 'hono';
import type { Upstream } from '../transport/upstream.js';
import type { CardRegistry } from '../cards/registry.js';
import { publicBaseUrl, type PeerTrust } from '../proxy/public-url.js';
import type { IncomingMessage } from 'node:http';
import type { RecentExchanges } from '../inspect/recent.js';
import type { TaskTracker } from '../tasks/tracker.js';

export interface ControlDeps {
  readonly upstreams: ReadonlyMap<string, Upstream>;
  readonly registry: CardRegistry;
  readonly trust: PeerTrust;
  readonly publicUrl: string | undefined;
  readonly isDraining: () => boolean;
  readonly recent: RecentExchanges;
  readonly tracker: TaskTracker;
  /** Prometheus exposition on the main listener, unless it has a listener of its own. */
  readonly metrics?: { readonly path: string; readonly handler: () => Promise<Response> };
}

type Env = { Bindings: { incoming: IncomingMessage } };

export function createControlApp(deps: ControlDeps): Hono<Env> {
  const app = new Hono<Env>();

  app.get('/healthz', (c) => c.json({ status: 'ok' }));

  app.get('/readyz', (c) => {
    if (deps.isDraining()) return c.json({ status: 'draining' }, 503);
    const pending = deps.registry.pending();
    return pending.length === 0
      ? c.json({ status: 'ready' })
      : c.json({ status: 'not ready', waitingForCards: pending }, 503);
  });

  const catalog = async (c: { env: Env['Bindings']; json: (body: unknown) => Response }) => {
    const req = c.env.incoming;
    const base = publicBaseUrl(req, deps.publicUrl, deps.trust.isTrusted(req));
    const agents = await Promise.all([...deps.upstreams.values()].map((u) => deps.registry.status(u, base)));
    return c.json({ agents });
  };
  app.get('/agents', catalog);
  app.get('/agents/', catalog);

  if (deps.metrics) app.get(deps.metrics.path, deps.metrics.handler);

  // What the gateway recorded about recent calls: shape, ids, state, findings (no bodies).
  app.get('/exchanges', (c) => {
    const limit = Number(c.req.query('limit') ?? 50);
    const exchanges = deps.recent.find({
      agent: c.req.query('agent'),
      messageId: c.req.query('messageId'),
      taskId: c.req.query('taskId'),
      limit: Number.isFinite(limit) ? limit : 50,
    });
    return c.json({ exchanges });
  });

  // One task's story across calls: states with their times, time waiting for input, duration.
  app.get('/tasks/:agent/:taskId', (c) => {
    const story = deps.tracker.store.get(c.req.param('agent'), c.req.param('taskId'));
    return story
      ? c.json(story)
      : c.json(
          { error: { code: 404, status: 'NOT_FOUND', message: 'this task is not tracked (never seen, or forgotten)' } },
          404,
        );
  });

  app.notFound((c) =>
    c.json(
      {
        error: {
          code: 404,
          status: 'NOT_FOUND',
          message: `no route for ${c.req.method} ${c.req.path}; agents are served under /agents/{name}/ (see GET /agents)`,
        },
      },
      404,
    ),
  );
  app.onError((_err, c) =>
    c.json({ error: { code: 500, status: 'INTERNAL', message: 'internal gateway error' } }, 500),
  );
  return app;
}
