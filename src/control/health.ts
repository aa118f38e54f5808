/**
 * Liveness and readiness, answered alike on both listeners: load balancers probe the traffic
 * listener, operators may probe the admin one. After a reload, readiness carries `lastReload`:
 * a refused config leaves the status as it is (the gateway serves on the config before it, so
 * it is still ready) but says so, with the errors (src/reload/report.ts).
 */
import type { Env, Hono } from 'hono';
import type { CardRegistry } from '../cards/registry.js';
import type { LastReload } from '../reload/report.js';

export interface HealthDeps {
  readonly registry: Pick<CardRegistry, 'pending'>;
  readonly isDraining: () => boolean;
  /** False while a store the config marks `required` (state.redis.required) is down. */
  readonly stateReady?: () => boolean;
  /** The last reload, or undefined before any (then `/readyz` has no such detail). */
  readonly lastReload?: () => LastReload | undefined;
}

export function mountHealth<E extends Env>(app: Hono<E>, deps: HealthDeps): void {
  app.get('/healthz', (c) => c.json({ status: 'ok' }));

  app.get('/readyz', (c) => {
    if (deps.isDraining()) return c.json({ status: 'draining' }, 503);
    if (deps.stateReady && !deps.stateReady()) return c.json({ status: 'not ready', stateStore: 'down' }, 503);
    const pending = deps.registry.pending();
    const lastReload = deps.lastReload?.();
    const detail = lastReload ? { lastReload } : {};
    return pending.length === 0
      ? c.json({ status: 'ready', ...detail })
      : c.json({ status: 'not ready', waitingForCards: pending, ...detail }, 503);
  });
}
