/**
 * PENDING the console's data routes (src/console/api.ts, timeline.ts): rename to
 * views.test.ts when they are merged. The demo fleet behind an in-process gateway, the demo's
 * messages sent (a question → a message; a diff → a task asking for input; the answer → the task
 * completed), then every view read in chromium from the real /console/api/*.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startDemoFleet, type DemoFleet } from '../../src/demo/fleet.js';
import { runDemo, type DemoOutcome } from '../../src/demo/client.js';
import type { RunningGateway } from '../../src/gateway.js';
import { startTestGateway } from '../support/gateway.js';
import { SHOTS, launchBrowser, overflowsHorizontally, requireBuiltConsole, watchErrors } from './support/browser.js';

let browser: Browser;
let fleet: DemoFleet;
let gateway: RunningGateway;
let outcomes: DemoOutcome[];
let errors: string[];

beforeAll(async () => {
  requireBuiltConsole();
  browser = await launchBrowser();
  fleet = await startDemoFleet({ basePort: 0, reviewerStepMs: 50 });
  const agents = Object.fromEntries(Object.entries(fleet.agents).map(([name, url]) => [name, { url }]));
  gateway = await startTestGateway(agents);
  outcomes = await runDemo(gateway.url, () => {}, { url: gateway.adminUrl });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await gateway?.close();
  await fleet?.close();
});

async function visit(path: string): Promise<Page> {
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  errors = watchErrors(page);
  await page.goto(`${gateway.adminUrl}${path}`);
  await page.locator('h1').waitFor();
  return page;
}

async function done(page: Page, shot: string): Promise<void> {
  await page.screenshot({ path: `${SHOTS}/${shot}-demo.png`, fullPage: true });
  expect(await overflowsHorizontally(page)).toBe(false);
  expect(errors).toEqual([]);
  await page.context().close();
}

const taskId = (): string => {
  const id = outcomes.find((o) => o.taskId)?.taskId;
  if (!id) throw new Error('the demo made no task');
  return id;
};

describe('console views on the demo fleet', () => {
  it('fleet: code-reviewer reachable, one message and the task exchanges, the task completed', async () => {
    const page = await visit('/console/');
    const row = page.locator('tbody tr', { has: page.locator('th', { hasText: 'code-reviewer' }) });
    await expect.poll(async () => (await row.textContent()) ?? '', { timeout: 10_000 }).toContain('1 message');
    const text = await row.textContent();
    expect(text).toContain('yes');
    expect(text).toMatch(/[12] task/);
    expect(text).toContain('completed 1');
    expect(text).toContain('SendMessage');
    expect(await row.locator('canvas').count()).toBe(1);
    expect(await page.locator('tbody tr').count()).toBe(3);
    await done(page, 'fleet');
  });

  it('live: the next exchanges arrive on the feed; Enter opens one', async () => {
    const page = await visit('/console/live');
    await expect.poll(() => page.getByRole('status').first().textContent()).toContain('live');
    await runDemo(gateway.url, () => {}, { url: gateway.adminUrl });
    await expect.poll(() => page.locator('tbody tr').count(), { timeout: 10_000 }).toBeGreaterThanOrEqual(3);
    expect(await page.locator('tbody').textContent()).toContain('SendMessage');
    await page.locator('tbody tr').first().focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('h1').textContent()).toMatch(/^Exchange /);
    await page.locator('dl.facts').waitFor();
    expect(await page.locator('dl.facts').textContent()).toContain('code-reviewer');
    await done(page, 'exchange');
  });

  it('task timeline: the demo task with its calls, input-required and completed on the axis', async () => {
    const page = await visit(`/console/tasks/code-reviewer/${taskId()}`);
    const svg = page.locator('svg.timeline[role="img"]');
    await svg.waitFor();
    expect(await svg.getAttribute('aria-label')).toMatch(/input-required[\s\S]*completed/);
    expect(await svg.locator('.call rect').count()).toBeGreaterThanOrEqual(2);
    expect(await svg.locator('.state.shown rect').count()).toBeGreaterThanOrEqual(2);
    expect(await page.locator('.task-facts').textContent()).toMatch(/in input-required[\s\S]*duration/);
    await done(page, 'task');
  });

  it('task compare: the demo task beside itself', async () => {
    const id = taskId();
    const page = await visit(`/console/tasks/code-reviewer/${id}?compare=code-reviewer/${id}`);
    await expect.poll(() => page.locator('svg.timeline .title').count()).toBe(2);
    await done(page, 'compare');
  });

  it('findings: the page reads the rules (the demo may have none)', async () => {
    const page = await visit('/console/findings');
    await expect.poll(() => page.locator('.notice, section.rule').first().textContent()).toMatch(/No findings|\S/);
    expect(await page.locator('.notice', { hasText: 'cannot be shown' }).count()).toBe(0);
    await done(page, 'findings');
  });
});
