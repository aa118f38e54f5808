/** The admin token guard on its own: Bearer scheme (any case), the exact token, nothing else. */
import { describe, expect, it } from 'vitest';
import { Hono } from 'hono';
import { ADMIN_CHALLENGE, requireAdminToken } from '../../src/control/admin-token.js';

const TOKEN = 'a-token-of-sixteen-or-more';
const app = new Hono();
app.use('*', requireAdminToken(TOKEN));
app.get('/x', (c) => c.text('ok'));

const status = async (authorization?: string) =>
  (await app.request('/x', { headers: authorization === undefined ? {} : { authorization } })).status;

describe('requireAdminToken', () => {
  it('admits the token with the Bearer scheme, in any case', async () => {
    expect(await status(`Bearer ${TOKEN}`)).toBe(200);
    expect(await status(`bearer ${TOKEN}`)).toBe(200);
    expect(await status(`BEARER  ${TOKEN}`)).toBe(200);
  });

  it.each([
    ['none', undefined],
    ['empty', ''],
    ['scheme only', 'Bearer'],
    ['another scheme', `Basic ${TOKEN}`],
    ['the bare token', TOKEN],
    ['a prefix', `Bearer ${TOKEN.slice(0, 8)}`],
    ['longer', `Bearer ${TOKEN}${TOKEN}`],
    ['two tokens', `Bearer ${TOKEN} ${TOKEN}`],
    ['other case', `Bearer ${TOKEN.toUpperCase()}`],
  ])('refuses %s with 401 and the challenge', async (_label, authorization) => {
    const res = await app.request('/x', { headers: authorization === undefined ? {} : { authorization } });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(ADMIN_CHALLENGE);
    expect(await res.json()).toMatchObject({ error: { code: 401, status: 'UNAUTHENTICATED' } });
  });
});
