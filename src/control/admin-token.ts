/**
 * The admin listener's one credential: when `admin.token` is set, every request (unknown paths
 * too, so they reveal nothing) needs `Authorization: Bearer <token>`. Both sides are hashed with
 * SHA-256 before `timingSafeEqual`, so the comparison takes the same time whatever the length or
 * the first differing byte of what was sent. Without a token configured, the listener's address
 * is the only guard (127.0.0.1 by default).
 *
 * Under `/console/` the `a2a_console` cookie (src/console/session.ts) counts as the
 * token too, `/console/session` (sign-in, sign-out) is open, and a console page asked without
 * credentials answers 401 with the sign-in form instead of JSON.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { errorAnswer } from '../errors/control-answer.js';
import { consoleCookieValue, presentedCookie, sameSecret, signInPage } from '../console/session.js';

/** RFC 6750 §3: the challenge a client without (or with a wrong) token gets. */
export const ADMIN_CHALLENGE = 'Bearer realm="a2a-gateway-admin"';

const sha256 = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/** The token a request presents, or undefined; the scheme is case-insensitive (RFC 9110 §11.1). */
function presented(authorization: string | undefined): string | undefined {
  const match = /^bearer +(\S+) *$/i.exec(authorization ?? '');
  return match?.[1];
}

const underConsole = (path: string): boolean => path === '/console' || path.startsWith('/console/');

export function requireAdminToken(token: string): MiddlewareHandler {
  const expected = sha256(token);
  const cookieValue = consoleCookieValue(token);
  return async (c, next) => {
    const given = presented(c.req.header('authorization'));
    if (given !== undefined && timingSafeEqual(sha256(given), expected)) return next();
    const path = c.req.path;
    if (underConsole(path)) {
      if (path === '/console/session' || path.startsWith('/console/session/')) return next();
      const session = presentedCookie(c.req.header('cookie'));
      if (session !== undefined && sameSecret(session, cookieValue)) return next();
      if (given === undefined && !path.startsWith('/console/api/')) return c.html(signInPage(), 401);
    }
    const message =
      given === undefined
        ? 'the admin listener needs Authorization: Bearer <admin.token>'
        : 'the admin token does not match';
    return errorAnswer(c, 401, 'UNAUTHENTICATED', message, { 'www-authenticate': ADMIN_CHALLENGE });
  };
}
