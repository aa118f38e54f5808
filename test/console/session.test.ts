/**
 * The console's sign-in and the admin token (issue #15 item 3), on an admin-like app: under
 * /console/ the `a2a_console` cookie counts as the token; a page without credentials gets the
 * HTML sign-in form, the data routes JSON 401; elsewhere nothing changes.
 */
import { describe, expect, it } from 'vitest';
import { Hono } from 'hono';
import { requireAdminToken } from '../../src/control/admin-token.js';
import { CONSOLE_COOKIE, consoleCookieValue, mountConsoleSession } from '../../src/console/session.js';

const TOKEN = 'a-token-of-sixteen-or-more';
const app = new Hono();
app.use('*', requireAdminToken(TOKEN));
mountConsoleSession(app, TOKEN);
app.get('/console/', (c) => c.text('page'));
app.get('/console/api/fleet', (c) => c.json({ agents: [] }));
app.get('/exchanges', (c) => c.json({ exchanges: [] }));

const good = `${CONSOLE_COOKIE}=${consoleCookieValue(TOKEN)}`;
const signIn = (token: string, headers: Record<string, string> = {}) =>
  app.request('/console/session', {
    method: 'POST',
    body: new URLSearchParams({ token }),
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
  });

describe('console session', () => {
  it('a page without credentials answers 401 with the sign-in form; the data routes answer JSON 401', async () => {
    const page = await app.request('/console/');
    expect(page.status).toBe(401);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(await page.text()).toMatch(/<form method="post" action="\/console\/session">[\s\S]*<label for="token">/);
    const api = await app.request('/console/api/fleet');
    expect(api.status).toBe(401);
    expect(await api.json()).toMatchObject({ error: { status: 'UNAUTHENTICATED' } });
  });

  it('the right token sets the HttpOnly, SameSite=Strict cookie scoped to /console and redirects (303)', async () => {
    const res = await signIn(TOKEN);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/console/');
    const cookie = res.headers.get('set-cookie') ?? '';
    expect(cookie).toBe(`${good}; HttpOnly; SameSite=Strict; Path=/console`);
    expect((await signIn(TOKEN, { 'x-forwarded-proto': 'https' })).headers.get('set-cookie')).toMatch(/; Secure$/);
  });

  it('a wrong token answers 401 with the form again, and no cookie', async () => {
    const res = await signIn('not-the-token');
    expect(res.status).toBe(401);
    expect(res.headers.get('set-cookie')).toBeNull();
    expect(await res.text()).toMatch(/not the admin token[\s\S]*<form/);
  });

  it('the cookie admits /console/ pages and data, nothing else; a rotated token invalidates it', async () => {
    expect((await app.request('/console/', { headers: { cookie: good } })).status).toBe(200);
    expect((await app.request('/console/api/fleet', { headers: { cookie: `x=1; ${good}` } })).status).toBe(200);
    expect((await app.request('/exchanges', { headers: { cookie: good } })).status).toBe(401);
    const rotated = `${CONSOLE_COOKIE}=${consoleCookieValue('another-token-of-sixteen')}`;
    expect((await app.request('/console/', { headers: { cookie: rotated } })).status).toBe(401);
    expect((await app.request('/console/', { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
  });

  it('logout clears the cookie', async () => {
    const res = await app.request('/console/session/logout', { headers: { cookie: good } });
    expect(res.status).toBe(303);
    expect(res.headers.get('set-cookie')).toMatch(
      /^a2a_console=; HttpOnly; SameSite=Strict; Path=\/console; Max-Age=0/,
    );
  });
});
