/**
 * Liveness and readiness, answered alike on both listeners: load balancers probe the traffic
 * listener, operators may probe the admin one.
 */
import type { Env, Hono } from 'hono';
import type { CardRegistry } from '../cards/registry.js';

export interface HealthDeps {
  readonly registry: Pick<CardRegistry, 'pending'>;
  readonly isDraining: () => boolean;
  /** False while a store the config marks `required` (state.redis.required) is down. */
  readonly stateReady?: () => boolean;
}

export function mountHealth<E extends Env>(app: Hono<E>, deps: HealthDeps): void {
  app.get('/healthz', (c) => c.json({ status: 'ok' }));

  app.get('/readyz', (c) => {
    if (deps.isDraining()) return c.json({ status: 'draining' }, 503);
    if (deps.stateReady && !deps.stateReady()) return c.json({ status: 'not ready', stateStore: 'down' }, 503);
    const pending = deps.registry.pending();
    return pending.length === 0
      ? c.json({ status: 'ready' })
      : c.json({ status: 'not ready', waitingForCards: pending }, 503);
  });
}
