/**
 * The traffic listener's own endpoints (hono): liveness, readiness (ready or not, no detail:
 * health.ts) and the public catalog, as the
 * gateway's own list (`/agents`) and as an AI Catalog (`/.well-known/ai-catalog.json`,
 * ai-catalog.ts). What
 * only operators may see (recorded exchanges, task stories, metrics, the full catalog with the
 * agents' own URLs) is on the admin listener (admin-app.ts), so this app has no route for it and
 * answers those paths with the same 404 as any other. These endpoints are not on the forwarding
 * path, so the framework's per-request cost does not matter here.
 */
import { Hono, type Context } from 'hono';
import type { IncomingMessage } from 'node:http';
import type { Upstream } from '../transport/upstream.js';
import type { CardRegistry } from '../cards/registry.js';
import { publicBaseUrl, type PeerTrust } from '../transport/peer.js';
import { mountHealth } from './health.js';
import { answerMisses } from '../errors/control-answer.js';
import { AI_CATALOG_MEDIA_TYPE, aiCatalog, type CatalogHost } from './ai-catalog.js';

export interface ControlDeps {
  readonly upstreams: ReadonlyMap<string, Upstream>;
  readonly registry: CardRegistry;
  readonly trust: PeerTrust;
  readonly publicUrl: string | undefined;
  readonly isDraining: () => boolean;
  /** `/readyz` is 503 while this is false (state.redis.required). */
  readonly stateReady?: () => boolean;
  /** Whether this caller may see `agent` in the public catalog; default: every agent. */
  readonly mayList?: (req: IncomingMessage, agent: string) => Promise<boolean> | boolean;
  /**
   * The request headers `mayList` decides by (the caller's credentials, with `auth` on): both
   * lists vary with them, so they are marked private to the caller and `Vary` on them.
   */
  readonly listVaries?: readonly string[];
  /** `catalog.host`: who runs the catalog, in the AI Catalog's `host`. */
  readonly catalogHost?: CatalogHost;
  /** The gateway's public card-signing key (`cards.signing`), at `/.well-known/jwks.json`. */
  readonly jwks?: { readonly keys: readonly Record<string, unknown>[] };
}

type Env = { Bindings: { incoming: IncomingMessage } };

export function createControlApp(deps: ControlDeps): Hono<Env> {
  const app = new Hono<Env>();
  mountHealth(app, deps);
  const catalog = publicCatalog(deps);
  const headers = listHeaders(deps.listVaries ?? []);
  const list = (c: Context<Env>) => catalog(c.env.incoming).then((agents) => c.json({ agents }, 200, headers));
  app.get('/agents', list);
  app.get('/agents/', list);
  // HEAD too (hono answers it with the GET route, body dropped). The draft's media type: its
  // link-relation discovery takes a document as the catalog only by it (ai-catalog.md "Discovery").
  const aiHeaders = { ...headers, 'content-type': AI_CATALOG_MEDIA_TYPE };
  app.get('/.well-known/ai-catalog.json', (c) =>
    catalog(c.env.incoming).then((agents) =>
      c.body(JSON.stringify(aiCatalog(agents, deps.catalogHost)), 200, aiHeaders),
    ),
  );
  // Public key only (src/cards/signer.ts): clients verify the cards the gateway signs with it.
  const jwks = deps.jwks;
  if (jwks) app.get('/.well-known/jwks.json', (c) => c.json(jwks));
  answerMisses(app, 'agents are served under /agents/{name}/ (see GET /agents)');
  return app;
}

/**
 * With `auth` on, a list is one caller's view: `private` keeps shared caches from handing it to
 * another caller (RFC 9111 §5.2.2.7), `Vary` keeps the caller's own cache from reusing it under
 * other credentials (RFC 9110 §12.5.5). Without it the lists are the same for everyone.
 */
function listHeaders(varies: readonly string[]): Record<string, string> {
  return varies.length === 0 ? {} : { 'cache-control': 'private', vary: varies.join(', ') };
}

/** Each agent the caller may list, as its clients see it: URL at the gateway, card as served. */
function publicCatalog(deps: ControlDeps) {
  const mayList = deps.mayList ?? (() => true);
  return async (req: IncomingMessage) => {
    const base = publicBaseUrl(req, deps.publicUrl, deps.trust.isTrusted(req.socket.remoteAddress));
    const all = [...deps.upstreams.values()];
    const allowed = await Promise.all(all.map((u) => mayList(req, u.name)));
    const listed = all.filter((_, i) => allowed[i] === true);
    return Promise.all(listed.map((u) => deps.registry.publicStatus(u, base)));
  };
}
