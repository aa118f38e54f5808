/**
 * Liveness and readiness on both listeners: load balancers probe the traffic listener, operators
 * the admin one. Both answer the same status codes (200 ready, 503 not); only the admin one says
 * why (issue #29 item 5). The traffic listener is open to anyone who can reach the gateway, so
 * its `/readyz` is `{"status":"ready"}` or `{"status":"not ready"}` and nothing more: no agent
 * names (the public `/agents` hides agents from callers that may not use them), no reload errors
 * (a refused config's errors quote the file, which may hold credentials). On the admin listener
 * readiness says `draining`, a required state store that is down, which required agents' cards
 * it waits for (`waitingForCards`), every agent whose card the last fetch did not get
 * (`cardsUnavailable`) or whose first fetch has not answered yet (`cardsPending`), whether or not
 * it holds readiness, and after a reload `lastReload`: a refused config leaves the status as it is (the gateway
 * serves on the config before it, so it is still ready) but says so, with the errors
 * (src/reload/report.ts).
 *
 * Readiness is about the gateway itself (issue #30): its listeners answer, its config loaded, a
 * required state store is up. An agent's card holds it only with `agents.{name}.required: true`;
 * otherwise one unreachable agent — at start or added by a reload — would make every pod 503 and
 * a rollout would never become ready, while the other agents are served fine. An agent without
 * its card is still forwarded to (its calls fail as the agent does) and shows in the metrics
 * (`a2a_agent_card_up`) and in `cardsUnavailable` here.
 */
import type { Env, Hono } from 'hono';
import type { CardRegistry } from '../cards/registry.js';
import type { LastReload } from '../reload/report.js';

/** What readiness is decided by: the same on both listeners. */
export interface ReadinessDeps {
  readonly registry: Pick<CardRegistry, 'requiredPending' | 'cardStates'>;
  readonly isDraining: () => boolean;
  /** False while a store the config marks `required` (state.redis.required) is down. */
  readonly stateReady?: () => boolean;
}

/** The admin listener's: readiness and why. */
export interface HealthDeps extends ReadinessDeps {
  /** The last reload, or undefined before any (then `/readyz` has no such detail). */
  readonly lastReload?: () => LastReload | undefined;
}

/** The traffic listener's `/healthz` and `/readyz`: status codes and a status word, no detail. */
export function mountHealth<E extends Env>(app: Hono<E>, deps: ReadinessDeps): void {
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', (c) => (isReady(deps) ? c.json({ status: 'ready' }) : c.json({ status: 'not ready' }, 503)));
}

/** The admin listener's `/healthz` and `/readyz`: the same status codes, with the reasons. */
export function mountHealthDetail<E extends Env>(app: Hono<E>, deps: HealthDeps): void {
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', (c) => {
    if (deps.isDraining()) return c.json({ status: 'draining' }, 503);
    if (deps.stateReady && !deps.stateReady()) return c.json({ status: 'not ready', stateStore: 'down' }, 503);
    const pending = deps.registry.requiredPending();
    const states = deps.registry.cardStates();
    const named = (state: string) => states.filter((s) => s.state === state).map((s) => s.agent);
    const [unfetched, unavailable] = [named('pending'), named('unavailable')];
    const lastReload = deps.lastReload?.();
    const detail = {
      ...(unfetched.length > 0 ? { cardsPending: unfetched } : {}),
      ...(unavailable.length > 0 ? { cardsUnavailable: unavailable } : {}),
      ...(lastReload ? { lastReload } : {}),
    };
    return pending.length === 0
      ? c.json({ status: 'ready', ...detail })
      : c.json({ status: 'not ready', waitingForCards: pending, ...detail }, 503);
  });
}

function isReady(deps: ReadinessDeps): boolean {
  return !deps.isDraining() && (!deps.stateReady || deps.stateReady()) && deps.registry.requiredPending().length === 0;
}
