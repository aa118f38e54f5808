/**
 * Serving the built page (src/console/page.ts): the redirect, index.html for every page path
 * (no-cache), hashed assets with their types (cached), no way out of the folder, and a clear 503
 * when the page was not built.
 */
import { describe, expect, it, beforeAll } from 'vitest';
import { readdirSync } from 'node:fs';
import { Hono } from 'hono';
import { assetPath, mountConsolePage } from '../../src/console/page.js';
import { requireBuiltConsole } from './support/browser.js';

const app = new Hono();
mountConsolePage(app, { root: 'dist/console' });

describe('console page serving', () => {
  beforeAll(requireBuiltConsole);

  it('redirects /console to /console/ (308)', async () => {
    const res = await app.request('/console');
    expect(res.status).toBe(308);
    expect(res.headers.get('location')).toBe('/console/');
  });

  it.each(['/console/', '/console/live', '/console/findings', '/console/tasks/a/t-1', '/console/exchanges/7'])(
    'answers index.html at %s, not cached',
    async (path) => {
      const res = await app.request(path);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.headers.get('cache-control')).toBe('no-cache');
      expect(await res.text()).toMatch(/<script type="module" src="\/console\/assets\/console-[A-Z0-9]+\.js">/);
    },
  );

  it('serves the hashed script and stylesheet with their types, cached for good', async () => {
    const assets = readdirSync('dist/console/assets').filter((f) => !f.endsWith('.map'));
    const js = assets.find((f) => f.endsWith('.js'))!;
    const css = assets.find((f) => f.endsWith('.css'))!;
    const script = await app.request(`/console/assets/${js}`);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(script.headers.get('cache-control')).toMatch(/immutable/);
    const style = await app.request(`/console/assets/${css}`);
    expect(style.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(await style.text()).toMatch(/\.uplot/); // uPlot's stylesheet is bundled in
  });

  it('refuses to leave the assets folder', async () => {
    for (const path of [
      '/console/assets/../index.html',
      '/console/assets/%2e%2e/page.js',
      '/console/assets/..%2fpage.js',
    ])
      expect((await app.request(path)).status).toBe(404);
    expect(assetPath('/srv/c', '../x')).toBeUndefined();
    expect(assetPath('/srv/c', 'a/../../x')).toBeUndefined();
    expect(assetPath('/srv/c', 'console-1.js')).toBe('/srv/c/assets/console-1.js');
  });

  it('answers 503 saying to build when the page is missing', async () => {
    const bare = new Hono();
    mountConsolePage(bare, { root: '/nonexistent/console' });
    const res = await bare.request('/console/live');
    expect(res.status).toBe(503);
    expect(await res.text()).toMatch(/run npm run build/);
    expect((await bare.request('/console/assets/console-X.js')).status).toBe(503);
  });
});
