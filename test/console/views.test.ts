/**
 * Issue #15's proof, in chromium against the real /console/api/*: the demo fleet behind an
 * in-process gateway and the demo's messages sent (a question → a message; a diff → a task asking
 * for input; the answer → the task completed), the deployer behind the timeout rescue (its task
 * outlives the client's 1 s deadline), and a misbehaving agent (a SendMessage result with both a
 * task and a message). Screenshots of each view: test-output/console/*-demo.png.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startDemoFleet, type DemoFleet } from '../../src/demo/fleet.js';
import { runDemo, type DemoOutcome } from '../../src/demo/client.js';
import type { RunningGateway } from '../../src/gateway/gateway.js';
import { startTestGateway } from '../support/gateway.js';
import { scriptedUpstream } from '../support/scripted-upstream.js';
import { misbehaving } from './support/misbehaving.js';
import { V1, call, rpc, wireMessageV1 } from '../access/support/harness.js';
import { clientV1, sendRequestV1, userMessageV1 } from '../peers/clients.js';
import { asTask } from '../peers/inspect.js';
import { within } from '../peers/deadline.js';
import { SHOTS, launchBrowser, overflowsHorizontally, requireBuiltConsole, watchErrors } from './support/browser.js';

let browser: Browser;
let fleet: DemoFleet;
let gateway: RunningGateway;
let outcomes: DemoOutcome[];
let errors: string[];
let broken: { url: string; close: () => Promise<void> };
/** The deployer's task, answered by the timeout rescue at the client's deadline. */
let rescuedTaskId: string;

beforeAll(async () => {
  requireBuiltConsole();
  browser = await launchBrowser();
  fleet = await startDemoFleet({ basePort: 0, reviewerStepMs: 50 });
  let base = '';
  broken = await scriptedUpstream(misbehaving(() => base));
  base = broken.url;
  const agents: Record<string, { url?: string; [key: string]: unknown }> = Object.fromEntries(
    Object.entries(fleet.agents).map(([name, url]) => [name, { url }]),
  );
  agents['deployer'] = {
    ...agents['deployer']!,
    timeoutRescue: { enabled: true, clientTimeout: '1s', margin: '200ms' },
  };
  agents['broken'] = { url: broken.url };
  // One agent as replicas (a list of one): the fleet view shows each replica's health.
  agents['code-reviewer'] = { upstreams: [agents['code-reviewer']!.url] };
  gateway = await startTestGateway(agents);
  outcomes = await runDemo(gateway.url, () => {}, { url: gateway.adminUrl });
  // A blocking send to the deployer: its task runs far past the client's 1 s deadline.
  const deployer = await clientV1(`${gateway.url}/agents/deployer/`, { transport: 'JSONRPC' });
  rescuedTaskId = asTask(
    await deployer.sendMessage(sendRequestV1(userMessageV1('deploy api to staging')), within(10_000)),
  ).id;
  await call(`${gateway.url}/agents/broken/`, undefined, {
    headers: V1,
    body: rpc('SendMessage', { message: wireMessageV1('hi') }),
  });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await gateway?.close();
  await Promise.all([fleet?.close(), broken?.close()]);
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
  it('fleet: code-reviewer reachable, with one message and one task (its two task answers), completed', async () => {
    const page = await visit('/console/');
    const row = page.locator('tbody tr', { has: page.locator('th', { hasText: 'code-reviewer' }) });
    await expect.poll(async () => (await row.textContent()) ?? '', { timeout: 10_000 }).toContain('1 message');
    const text = (await row.textContent()) ?? '';
    expect(text).toContain('yes'); // reachable
    expect(text).toContain('2 task'); // the diff and the follow-up were answered with the task
    expect(text).toContain('completed 1'); // one task, now completed
    expect(text).toContain('SendMessage');
    expect(await row.locator('canvas').count()).toBe(1);
    // Its one replica, healthy, with its URL; an agent given as `url` shows none.
    const replica = row.locator(`[data-replica="${fleet.agents['code-reviewer']}"]`);
    expect(await replica.textContent()).toContain('healthy');
    expect(await replica.textContent()).toContain('outstanding');
    const deployer = page.locator('tbody tr', { has: page.locator('th', { hasText: 'deployer' }) });
    expect(await deployer.locator('[data-replica]').count()).toBe(0);
    expect(await page.locator('tbody tr').count()).toBe(4); // the demo fleet and the broken agent
    await done(page, 'fleet');
  });

  it('live: the next exchanges arrive on the feed; Enter opens one', async () => {
    const page = await visit('/console/live');
    await expect.poll(() => page.getByRole('status').first().textContent()).toContain('live');
    await runDemo(gateway.url, () => {}, { url: gateway.adminUrl });
    await expect.poll(() => page.locator('tbody tr').count(), { timeout: 10_000 }).toBeGreaterThanOrEqual(3);
    expect(await page.locator('tbody').textContent()).toContain('SendMessage');
    await page.screenshot({ path: `${SHOTS}/live-demo.png`, fullPage: true });
    await page.locator('tbody tr').first().focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('h1').textContent()).toMatch(/^Exchange /);
    await page.locator('dl.facts').waitFor();
    expect(await page.locator('dl.facts').textContent()).toContain('code-reviewer');
    // code-reviewer is configured with `upstreams`: the exchange names the replica it went to.
    expect(await page.locator('dl.facts').textContent()).toContain(fleet.agents['code-reviewer']!.replace(/\/$/, ''));
    await done(page, 'exchange');
  });

  it('task timeline: INPUT_REQUIRED then COMPLETED, the follow-up call as the second bar', async () => {
    const page = await visit(`/console/tasks/code-reviewer/${taskId()}`);
    const svg = page.locator('svg.timeline[role="img"]');
    await svg.waitFor();
    expect(await svg.getAttribute('aria-label')).toMatch(/input-required[\s\S]*completed/);
    expect(await svg.locator('.call rect').count()).toBe(2); // the diff, then the follow-up
    expect(await svg.locator('.state.shown rect').count()).toBe(2);
    expect(await svg.locator('.state.hidden').count()).toBe(0);
    expect(await page.locator('.task-facts').textContent()).toMatch(/in input-required[\s\S]*duration/);
    await done(page, 'task');
  });

  it('task timeline of a rescued task: a hollow square for the state only the gateway saw', async () => {
    const page = await visit(`/console/tasks/deployer/${rescuedTaskId}`);
    const svg = page.locator('svg.timeline[role="img"]');
    await svg.waitFor();
    // The rescue sent the message with returnImmediately: its SUBMITTED reply never reached the
    // client, which got the task (WORKING) at its deadline.
    expect(await svg.locator('.state.hidden rect').count()).toBeGreaterThanOrEqual(1);
    expect(await svg.locator('.state.shown rect').count()).toBeGreaterThanOrEqual(1);
    expect(await page.locator('main').textContent()).toContain('deadline');
    await done(page, 'task-rescued');
  });

  it('task compare: the demo task beside the rescued one, aligned at their first call', async () => {
    const page = await visit(`/console/tasks/code-reviewer/${taskId()}?compare=deployer/${rescuedTaskId}`);
    await expect.poll(() => page.locator('svg.timeline .title').count()).toBe(2);
    await done(page, 'compare');
  });

  it('findings: the misbehaving agent’s finding, with its spec section and a link to its exchange', async () => {
    const page = await visit('/console/findings');
    const rule = page.locator('section.rule', { hasText: 'a2a.send-result-shape' });
    await rule.waitFor();
    expect(await rule.textContent()).toContain('§3.1.1');
    const example = rule.locator('a[href*="/console/exchanges/"]').first();
    expect(await example.textContent()).toContain('broken');
    await done(page, 'findings');
  });
});
