/**
 * The console's browser harness: Debian's chromium driven by playwright-core, and a check that
 * the page was built. Neither is skipped when missing: each fails with the fix in its message.
 */
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { chromium, type Browser, type Page } from 'playwright-core';

export const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
export const SHOTS = 'test-output/console';

export function requireBuiltConsole(): void {
  if (!existsSync('dist/console/index.html'))
    throw new Error('dist/console/index.html is missing: run `npm run build` first (npm test does)');
}

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    throw new Error(`no chromium at ${CHROMIUM}: install Debian's chromium (apt-get install chromium; .ci/run does)`);
  await mkdir(SHOTS, { recursive: true });
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}

/** Script errors on a page: uncaught exceptions and console errors other than failed loads (an API that 404s). */
export function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(`pageerror: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() !== 'error') return;
    const text = msg.text();
    if (/Failed to load resource|EventSource|net::ERR_/i.test(text)) return;
    errors.push(`console: ${text}`);
  });
  return errors;
}

/** True when the document is wider than the viewport (horizontal scrolling). */
export async function overflowsHorizontally(page: Page): Promise<boolean> {
  // A string: this file is typechecked without the DOM library.
  return page.evaluate<boolean>('document.documentElement.scrollWidth > document.documentElement.clientWidth + 1');
}
