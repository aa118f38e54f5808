/**
 * Serves the console page on the admin listener: `/console` → 308 `/console/`; every
 * page path (`/console/`, `/console/live`, `/console/tasks/…`, `/console/findings`) answers
 * index.html, whose script routes on the path; `/console/assets/*` are the files esbuild wrote
 * to dist/console (scripts/build-console.mjs). Found relative to this module, so the built
 * package serves its own copy, offline. Without a build (tests running from src/) every console
 * page answers 503 saying so. The sign-in routes are src/console/session.ts.
 */
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Context, Hono } from 'hono';
import { mountConsoleSession } from './session.js';

export interface ConsolePageDeps {
  /** `admin.token`: enables the sign-in routes. */
  readonly token?: string;
  /** Where the built page is; default: dist/console next to the built module (../console from dist/console). */
  readonly root?: string;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/** dist/console when this module is dist/console/page.js; from src/, the repository's dist/console. */
export function defaultConsoleRoot(): string {
  const here = fileURLToPath(new URL('.', import.meta.url));
  const beside = resolve(here, 'index.html');
  if (existsSync(beside)) return here;
  return resolve(here, '../../dist/console');
}

/** The page paths the script routes (src/console/ui/router.ts). */
const PAGES = ['/console/', '/console/live', '/console/findings', '/console/tasks/*', '/console/exchanges/*'];

const notBuilt = (c: Context) =>
  c.text('the console page is not built: run npm run build (it writes dist/console/)\n', 503);

/** A path under root for an asset name, or undefined when it tries to leave it. */
export function assetPath(root: string, name: string): string | undefined {
  if (name.includes('\0') || name.split(/[\\/]/).includes('..')) return undefined;
  const full = resolve(root, 'assets', normalize(name));
  return full.startsWith(resolve(root, 'assets') + sep) ? full : undefined;
}

export function mountConsolePage(app: Hono, deps: ConsolePageDeps = {}): void {
  const root = deps.root ?? defaultConsoleRoot();
  mountConsoleSession(app, deps.token);
  const index = async (c: Context) => {
    const html = await readFile(join(root, 'index.html'), 'utf8').catch(() => undefined);
    if (html === undefined) return notBuilt(c);
    return c.body(html, 200, { 'content-type': TYPES['.html']!, 'cache-control': 'no-cache' });
  };
  app.get('/console', (c) => c.redirect('/console/', 308));
  app.get('/console/assets/*', async (c) => {
    let name: string;
    try {
      name = decodeURIComponent(c.req.path.slice('/console/assets/'.length));
    } catch {
      return c.text('no such asset\n', 404);
    }
    const file = assetPath(root, name);
    if (file === undefined) return c.text('no such asset\n', 404);
    const body = await readFile(file).catch(() => undefined);
    if (body === undefined) return existsSync(root) ? c.text('no such asset\n', 404) : notBuilt(c);
    // Hashed names (console-XXXX.js) never change content: cache them for a year.
    const hashed = /-[A-Z0-9]{8,}\.[a-z]+$/i.test(name);
    return c.body(body, 200, {
      'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
      'cache-control': hashed ? 'public, max-age=31536000, immutable' : 'no-cache',
      'x-content-type-options': 'nosniff',
    });
  });
  for (const path of PAGES) app.get(path, index);
}
