/**
 * Every view drawn with data (issue #15), in chromium, against a stand-in for /console/api/*
 * (support/stub-api.ts, the contract's shapes): the fleet's rows and sparklines, the live feed
 * with filters, pause and Enter to open an exchange (trace linked through traceUrl), the task
 * timeline's squares and bars (filled / hollow, compare aligned), and findings linking to their
 * exchanges. Screenshots go to test-output/console/*-data.png.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { SHOTS, launchBrowser, overflowsHorizontally, requireBuiltConsole, watchErrors } from './support/browser.js';
import { startStubConsole } from './support/stub-api.js';

let browser: Browser;
let stub: Awaited<ReturnType<typeof startStubConsole>>;
let errors: string[];

beforeAll(async () => {
  requireBuiltConsole();
  browser = await launchBrowser();
  stub = await startStubConsole();
});
afterAll(async () => {
  await browser?.close();
  await stub?.close();
});

async function visit(path: string, width = 1280): Promise<Page> {
  const page = await (await browser.newContext({ viewport: { width, height: 900 } })).newPage();
  errors = watchErrors(page);
  await page.goto(`${stub.url}${path}`);
  await page.locator('h1').waitFor();
  return page;
}

async function done(page: Page, shot: string): Promise<void> {
  await page.screenshot({ path: `${SHOTS}/${shot}-data.png`, fullPage: true });
  expect(await overflowsHorizontally(page)).toBe(false);
  expect(errors).toEqual([]);
  await page.context().close();
}

describe('console views with data', () => {
  it('fleet: a row per agent with reachability, versions, sparkline, totals, states, latency, streams, findings', async () => {
    const page = await visit('/console/');
    const row = page.locator('tbody tr', { has: page.locator('th', { hasText: 'code-reviewer' }) });
    await row.waitFor();
    const text = await row.textContent();
    for (const part of [
      'yes',
      '1.0, 0.3',
      'JSONRPC, HTTP+JSON',
      '4 message',
      '7 task',
      '1 error',
      'working 1',
      'completed 3',
    ])
      expect(text).toContain(part);
    expect(text).toMatch(/SendMessage: 42 ms \/ 1\.25 s/);
    expect(await row.locator('canvas').count()).toBe(1);
    expect(await page.locator('tbody tr', { hasText: 'deployer' }).textContent()).toContain('no: connect ECONNREFUSED');
    await done(page, 'fleet');
  });

  it('live: rows newest first, filters, pause, Enter opens the exchange with its trace linked', async () => {
    const page = await visit('/console/live');
    await expect.poll(() => page.locator('tbody tr').count()).toBe(3);
    expect(await page.locator('tbody tr').first().textContent()).toContain('GetTask');
    await expect.poll(() => page.locator('p.lede').textContent()).toContain('42 more were not sent');
    await page.getByLabel('agent').selectOption('deployer');
    expect(await page.locator('tbody tr').count()).toBe(1);
    await page.getByLabel('agent').selectOption('');
    await page.getByLabel('finding').selectOption('task-state-regression');
    expect(await page.locator('tbody tr').count()).toBe(1);
    await page.getByRole('button', { name: 'Pause' }).click();
    expect(await page.getByRole('button', { name: /Resume/ }).getAttribute('aria-pressed')).toBe('true');
    await page.screenshot({ path: `${SHOTS}/live-data.png`, fullPage: true });
    await page.locator('tbody tr').first().focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('h1').textContent()).toBe('Exchange 3');
    const trace = page.getByRole('link', { name: '0af7651916cd43dd8448eb211c80319c' });
    expect(await trace.getAttribute('href')).toBe('https://jaeger.example/trace/0af7651916cd43dd8448eb211c80319c');
    expect(await page.locator('dl.facts').textContent()).toContain('subscribe: upgraded');
    await done(page, 'exchange');
  });

  it('task timeline: states as filled / hollow squares, a bar per call with its label, artifact ticks, waits in words', async () => {
    const page = await visit('/console/tasks/code-reviewer/task-a');
    const svg = page.locator('svg.timeline[role="img"]');
    await svg.waitFor();
    expect(await svg.getAttribute('aria-label')).toMatch(
      /2 calls, states submitted, working, input-required, completed/,
    );
    expect(await svg.locator('.state.shown rect').count()).toBe(3);
    expect(await svg.locator('.state.hidden rect').count()).toBe(1);
    expect(await svg.locator('.call rect').count()).toBe(2);
    expect(await svg.locator('.artifact').count()).toBe(2);
    expect(await svg.textContent()).toMatch(/SendStreamingMessage · stream · rescue: upgraded/);
    const facts = await page.locator('.task-facts').textContent();
    expect(facts).toMatch(/1\.50 s in input-required/);
    expect(facts).toMatch(/duration 5\.00 s/);
    expect(await page.locator('table', { hasText: 'States' }).locator('tbody tr').count()).toBe(4);
    await done(page, 'task');
  });

  it('task compare: two tasks drawn one under the other, each from its first call', async () => {
    const page = await visit('/console/tasks/code-reviewer/blocking?compare=code-reviewer/immediate');
    await expect
      .poll(() => page.locator('svg.timeline .title').allTextContents())
      .toEqual(['code-reviewer / blocking', 'code-reviewer / immediate']);
    expect(await page.locator('svg.timeline').textContent()).toMatch(/SendMessage · blocking/);
    expect(await page.locator('.task-facts').count()).toBe(2);
    await done(page, 'compare');
  });

  it('findings: by rule with count, description and section, examples linking to the exchange', async () => {
    const page = await visit('/console/findings');
    const rule = page.locator('section.rule');
    await rule.waitFor();
    expect(await rule.textContent()).toMatch(/task-state-regression\s*2[\s\S]*terminal state[\s\S]*§4\.1\.3/);
    await rule.getByRole('link').click();
    await expect.poll(() => page.locator('h1').textContent()).toBe('Exchange 3');
    await done(page, 'findings');
  });

  it('fleet at 375 px stacks the columns without horizontal overflow', async () => {
    const page = await visit('/console/', 375);
    await page.locator('tbody tr').first().waitFor();
    await done(page, 'fleet-375');
  });
});
