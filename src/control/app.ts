/**
 * The gateway's own endpoints (hono): liveness, readiness and the fleet catalog. They are not on
 * the forwarding path, so the framework's per-request cost does not matter here.
 */
import { Hono } from 'hono';
import type { Upstream } from '../transport/upstream.js';
import type { CardRegistry } from '../cards/registry.js';
import { publicBaseUrl, type PeerTrust } from '../proxy/public-url.js';
import type { IncomingMessage } from 'node:http';

export interface ControlDeps {
  readonly upstreams: ReadonlyMap<string, Upstream>;
  readonly registry: CardRegistry;
  readonly trust: PeerTrust;
  readonly publicUrl: string | undefined;
  readonly isDraining: () => boolean;
}

type Env = { Bindings: { incoming: IncomingMessage } };

export function createControlApp(deps: ControlDeps): Hono<Env> {
  const app = new Hono<Env>();

  app.get('/healthz', (c) => c.json({ status: 'ok' }));

  app.get('/readyz', (c) => {
    if (deps.isDraining()) return c.json({ status: 'draining' }, 503);
    const pending = deps.registry.pending();
    return pending.length === 0 ? c.json({ status: 'ready' }) : c.json({ status: 'not ready', waitingForCards: pending }, 503);
  });

  const catalog = async (c: { env: Env['Bindings']; json: (body: unknown) => Response }) => {
    const req = c.env.incoming;
    const base = publicBaseUrl(req, deps.publicUrl, deps.trust.isTrusted(req));
    const agents = await Promise.all([...deps.upstreams.values()].map((u) => deps.registry.status(u, base)));
    return c.json({ agents });
  };
  app.get('/agents', catalog);
  app.get('/agents/', catalog);

  app.notFound((c) =>
    c.json({ error: { code: 404, status: 'NOT_FOUND', message: `no route for ${c.req.method} ${c.req.path}; agents are served under /agents/{name}/ (see GET /agents)` } }, 404),
  );
  app.onError((_err, c) => c.json({ error: { code: 500, status: 'INTERNAL', message: 'internal gateway error' } }, 500));
  return app;
}
