/**
 * The admin listener's one credential: when `admin.token` is set, every request (unknown paths
 * too, so they reveal nothing) needs `Authorization: Bearer <token>`. Both sides are hashed with
 * SHA-256 before `timingSafeEqual`, so the comparison takes the same time whatever the length or
 * the first differing byte of what was sent. Without a token configured, the listener's address
 * is the only guard (127.0.0.1 by default).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { errorAnswer } from './answers.js';

/** RFC 6750 §3: the challenge a client without (or with a wrong) token gets. */
export const ADMIN_CHALLENGE = 'Bearer realm="a2a-gateway-admin"';

const sha256 = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/** The token a request presents, or undefined; the scheme is case-insensitive (RFC 9110 §11.1). */
function presented(authorization: string | undefined): string | undefined {
  const match = /^bearer +(\S+) *$/i.exec(authorization ?? '');
  return match?.[1];
}

export function requireAdminToken(token: string): MiddlewareHandler {
  const expected = sha256(token);
  return async (c, next) => {
    const given = presented(c.req.header('authorization'));
    if (given !== undefined && timingSafeEqual(sha256(given), expected)) return next();
    const message =
      given === undefined
        ? 'the admin listener needs Authorization: Bearer <admin.token>'
        : 'the admin token does not match';
    return errorAnswer(c, 401, 'UNAUTHENTICATED', message, { 'www-authenticate': ADMIN_CHALLENGE });
  };
}
