/**
 * The admin listener answers only to its own names, and takes state changes only from itself
 * (issue #29). A browser on the operator's machine can be made to reach it:
 * - by DNS rebinding: a page whose hostname resolves to 127.0.0.1 reads the answers. Without
 *   `admin.token` (its address is then its only guard), a Host that is neither an IP literal,
 *   `localhost`, nor one of `admin.hosts` gets 403 — a rebinding page can only send its own
 *   hostname. With a token the page has no token to send, and the Service names operators use
 *   are not refused.
 * - by a cross-origin form or fetch that POSTs `/admin/reload` or a drain, with the console's
 *   cookie if the operator is signed in. So a state change whose `Origin` is another origin, or
 *   whose `Sec-Fetch-Site` says cross-site, gets 403, token or not.
 * Vite's and Jupyter's dev servers guard their loopback listeners the same way.
 */
import { isIP } from 'node:net';
import type { MiddlewareHandler } from 'hono';
import { errorAnswer } from '../errors/control-answer.js';

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The hostname of a Host header value: lower case, no port, IPv6 without brackets. */
function hostnameOf(host: string | undefined): string | undefined {
  if (!host) return undefined;
  const m = /^\[([^\]]+)\](?::\d+)?$/.exec(host) ?? /^([^:]+)(?::\d+)?$/.exec(host);
  return m?.[1]?.toLowerCase().replace(/\.$/, '');
}

/** The origin a request's own Host names, as an `Origin` header would spell it. */
function sameOrigin(origin: string, host: string, encrypted: boolean): boolean {
  try {
    const o = new URL(origin);
    return o.host === host.toLowerCase() || o.host === new URL(`${encrypted ? 'https' : 'http'}://${host}`).host;
  } catch {
    return false;
  }
}

export function guardAdminOrigin(hosts: readonly string[], checkHost: boolean): MiddlewareHandler {
  const named = new Set(['localhost', ...hosts.map((h) => h.toLowerCase().replace(/\.$/, ''))]);
  return async (c, next) => {
    const host = c.req.header('host') ?? '';
    const hostname = hostnameOf(host);
    if (checkHost && (hostname === undefined || (isIP(hostname) === 0 && !named.has(hostname)))) {
      return errorAnswer(c, 403, 'PERMISSION_DENIED', "this host name is not the admin listener's (admin.hosts)");
    }
    if (!SAFE.has(c.req.method)) {
      const origin = c.req.header('origin');
      const crossSite = c.req.header('sec-fetch-site') === 'cross-site';
      const encrypted = new URL(c.req.url).protocol === 'https:';
      if (crossSite || (origin !== undefined && origin !== 'null' && !sameOrigin(origin, host, encrypted))) {
        return errorAnswer(c, 403, 'PERMISSION_DENIED', 'a state change from another origin is refused');
      }
      if (origin === 'null')
        return errorAnswer(c, 403, 'PERMISSION_DENIED', 'a state change from an opaque origin is refused');
    }
    return next();
  };
}
