/**
 * The console's sign-in: a page load cannot send `Authorization: Bearer`, so with
 * `admin.token` set the browser trades the token once (POST /console/session) for a cookie,
 * `a2a_console` = HMAC-SHA256 of a fixed label keyed by the token. Every worker and replica can
 * verify it without shared state, and rotating the token invalidates every cookie. The cookie is
 * scoped to `/console` and counts as the token there only (src/control/admin-token.ts).
 */
import { createHmac, createHash, timingSafeEqual } from 'node:crypto';
import type { Context, Hono } from 'hono';

export const CONSOLE_COOKIE = 'a2a_console';
const LABEL = 'a2a-gateway console session v1';

/** The cookie's value for a token: base64url of HMAC-SHA256(token, LABEL). */
export function consoleCookieValue(token: string): string {
  return createHmac('sha256', token).update(LABEL, 'utf8').digest('base64url');
}

const sha256 = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/** Constant-time: both sides hashed first, so lengths do not leak. */
export function sameSecret(given: string, expected: string): boolean {
  return timingSafeEqual(sha256(given), sha256(expected));
}

/** The `a2a_console` cookie a request carries, or undefined. */
export function presentedCookie(header: string | undefined): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [name, ...rest] = part.trim().split('=');
    if (name === CONSOLE_COOKIE) return rest.join('=');
  }
  return undefined;
}

/** The sign-in page (401): one labelled password field, no script. */
export function signInPage(message?: string): string {
  const note = message ? `<p class="error" role="alert">${message}</p>` : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign in — a2a-gateway console</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:26rem;margin:3rem auto;padding:0 1rem;color:#1a1a1a;background:#fff}
input,button{font:inherit;padding:.4rem .6rem}input{width:100%;box-sizing:border-box;border:1px solid #555}
button{margin-top:.8rem;background:#0b5cad;color:#fff;border:0;border-radius:4px}:focus-visible{outline:3px solid #e8a200;outline-offset:2px}
.error{color:#a30000;font-weight:600}</style></head>
<body><main><h1>a2a-gateway console</h1>${note}
<form method="post" action="/console/session"><label for="token">Admin token (<code>admin.token</code>)</label>
<input id="token" name="token" type="password" autocomplete="current-password" required autofocus>
<button type="submit">Sign in</button></form></main></body></html>`;
}

/** Secure when the request came over https (directly, or as a proxy in front says). */
function overHttps(c: Context): boolean {
  const proto = c.req.header('x-forwarded-proto')?.split(',')[0]?.trim();
  return proto === 'https' || new URL(c.req.url).protocol === 'https:';
}

function cookie(c: Context, value: string, maxAge?: number): string {
  const secure = overHttps(c) ? '; Secure' : '';
  const age = maxAge === undefined ? '' : `; Max-Age=${maxAge}`;
  return `${CONSOLE_COOKIE}=${value}; HttpOnly; SameSite=Strict; Path=/console${age}${secure}`;
}

/** POST /console/session (form field `token`) and GET|POST /console/session/logout. */
export function mountConsoleSession(app: Hono, token: string | undefined): void {
  app.post('/console/session', async (c) => {
    if (token === undefined) return c.redirect('/console/', 303);
    const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
    const given = typeof form['token'] === 'string' ? form['token'] : '';
    if (!sameSecret(given, token)) return c.html(signInPage('That is not the admin token.'), 401);
    c.header('set-cookie', cookie(c, consoleCookieValue(token)));
    return c.redirect('/console/', 303);
  });
  const logout = (c: Context) => {
    c.header('set-cookie', cookie(c, '', 0));
    return c.redirect('/console/', 303);
  };
  app.get('/console/session/logout', logout);
  app.post('/console/session/logout', logout);
}
