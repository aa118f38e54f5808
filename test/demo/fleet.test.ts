// The demo fleet, each agent driven directly by the SDK 1.3.0 client (no gateway).
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskState, type StreamResponse } from '@a2a-js/sdk';
import { startDemoFleet, type DemoFleet } from '../../src/demo/fleet.js';
import { FOLLOW_UP_QUESTION } from '../../src/demo/agents/code-reviewer.js';
import { DIFF, QUESTION, runDemoAgainst } from '../../src/demo/client.js';
import { asBase, clientV1, sendRequestV1, userMessageV1, type TransportName } from '../peers/clients.js';
import { collect, pollUntil, within, withDeadline } from '../peers/deadline.js';
import { asMessage, asTask, stateName, texts, trace } from '../peers/inspect.js';

const TEST_RUNNER_MS = 260;
const DEPLOYER_MS = 500;
const TRANSPORTS: TransportName[] = ['JSONRPC', 'HTTP+JSON'];

let fleet: DemoFleet;
beforeAll(async () => {
  fleet = await startDemoFleet({
    basePort: 0,
    testRunnerMs: TEST_RUNNER_MS,
    deployerMs: DEPLOYER_MS,
    deployerProgressMs: 100,
    reviewerStepMs: 20,
  });
});
afterAll(() => fleet.close());

const connect = (name: keyof DemoFleet['agents'], transport: TransportName = 'JSONRPC') =>
  withDeadline(clientV1(asBase(fleet.agents[name]), { transport }), 5000, `${name} card`);

function statusTexts(events: StreamResponse[]): string[] {
  return events.flatMap((ev) =>
    ev.payload?.$case === 'statusUpdate' ? texts(ev.payload.value.status?.message?.parts) : [],
  );
}

describe('demo fleet', () => {
  it('runs three agents on separate servers, each with a streaming 1.0 card', async () => {
    const urls = Object.values(fleet.agents);
    expect(new Set(urls.map((u) => new URL(u).port)).size).toBe(3);
    for (const [name, url] of Object.entries(fleet.agents)) {
      const res = await fetch(`${url}/.well-known/agent-card.json`, {
        headers: { 'A2A-Version': '1.0' },
        ...within(2000),
      });
      const card = (await res.json()) as {
        name: string;
        capabilities: { streaming: boolean };
        supportedInterfaces: Array<{ url: string; protocolBinding: string }>;
      };
      expect(card.name).toBe(name);
      expect(card.capabilities.streaming).toBe(true);
      expect(card.supportedInterfaces.map((i) => `${i.protocolBinding} ${i.url}`)).toEqual([
        `JSONRPC ${url}/a2a/jsonrpc`,
        `HTTP+JSON ${url}/a2a/rest`,
      ]);
    }
  });

  it('fails cleanly when a port is taken', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as net.AddressInfo).port;
    try {
      await expect(withDeadline(startDemoFleet({ basePort: port }), 5000, 'fleet start')).rejects.toThrow(/EADDRINUSE/);
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });
});

describe.each(TRANSPORTS)('code-reviewer over %s', (transport) => {
  it('answers a question with a direct message', async () => {
    const c = await connect('code-reviewer', transport);
    const msg = asMessage(await c.sendMessage(sendRequestV1(userMessageV1(QUESTION)), within(5000)));
    expect(texts(msg.parts).join(' ')).toMatch(/Cache-Control/);
  });

  it('turns a text/x-diff into a task that asks a follow-up, then completes with a review', async () => {
    const c = await connect('code-reviewer', transport);
    const asked = asTask(
      await c.sendMessage(sendRequestV1(userMessageV1(DIFF, { mediaType: 'text/x-diff' })), within(5000)),
    );
    expect(stateName(asked.status?.state)).toBe('INPUT_REQUIRED');
    expect(texts(asked.status?.message?.parts)).toEqual([FOLLOW_UP_QUESTION]);

    const done = asTask(
      await c.sendMessage(sendRequestV1(userMessageV1('security', { taskId: asked.id })), within(5000)),
    );
    expect(done.id).toBe(asked.id);
    expect(stateName(done.status?.state)).toBe('COMPLETED');
    const review = done.artifacts[0];
    expect(review?.name).toBe('review.md');
    expect(texts(review?.parts)[0]).toContain('# Review (security)');
    expect(texts(review?.parts)[0]).toContain('Scope: 1 file, +2/-1.');
  });
});

describe('code-reviewer input classification', () => {
  const first = async (text: string, mediaType?: string) => {
    const c = await connect('code-reviewer');
    return c.sendMessage(sendRequestV1(userMessageV1(text, { mediaType })), within(5000));
  };

  it('recognises unified diffs sent as plain text', async () => {
    expect(stateName(asTask(await first(DIFF)).status?.state)).toBe('INPUT_REQUIRED');
    expect(stateName(asTask(await first('--- a/x.ts\n+++ b/x.ts\n@@ -1 +1 @@\n-a\n+b\n')).status?.state)).toBe(
      'INPUT_REQUIRED',
    );
  });

  it('never treats a text/x-diff part as a question, even when it ends in "?"', async () => {
    expect(stateName(asTask(await first('-old line\n+is this ok?', 'text/x-diff')).status?.state)).toBe(
      'INPUT_REQUIRED',
    );
  });

  it('explains itself when given neither a question nor a diff', async () => {
    expect(texts(asMessage(await first('hello')).parts)[0]).toMatch(/text\/x-diff/);
  });

  it('streams the diff turn: submitted, working, input-required', async () => {
    const c = await connect('code-reviewer');
    const events = await collect(
      c.sendMessageStream(sendRequestV1(userMessageV1(DIFF, { mediaType: 'text/x-diff' })), within(5000)),
      5000,
      'stream',
    );
    expect(trace(events)).toEqual(['task:SUBMITTED', 'status:WORKING', 'status:INPUT_REQUIRED']);
  });
});

describe('test-runner', () => {
  it('streams the log as appended artifact chunks and completes', async () => {
    const c = await connect('test-runner');
    const started = Date.now();
    const events = await collect(
      c.sendMessageStream(sendRequestV1(userMessageV1('run the tests')), within(5000)),
      5000,
      'stream',
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(TEST_RUNNER_MS - 20);
    const t = trace(events);
    expect(t.slice(0, 3)).toEqual(['task:SUBMITTED', 'status:WORKING', 'artifact']);
    expect(t.filter((x) => x === 'artifact+append')).toHaveLength(12);
    expect(t.slice(-2)).toEqual(['artifact+append+last', 'status:COMPLETED']);
    const chunks = events.flatMap((ev) =>
      ev.payload?.$case === 'artifactUpdate' ? texts(ev.payload.value.artifact?.parts) : [],
    );
    expect(chunks[0]).toContain('collected 12 items');
    expect(chunks[1]).toMatch(/::test_\w+ PASSED\n$/);
    expect(chunks.at(-1)).toMatch(/12 passed in/);
  });

  it('creates a task for every message, questions included', async () => {
    const c = await connect('test-runner', 'HTTP+JSON');
    const task = asTask(await c.sendMessage(sendRequestV1(userMessageV1('are the tests green?')), within(5000)));
    expect(stateName(task.status?.state)).toBe('COMPLETED');
    expect(task.artifacts).toHaveLength(1);
    expect(task.artifacts[0]?.parts).toHaveLength(14);
  });
});

describe('deployer', () => {
  it('reports periodic progress and completes with a report', async () => {
    const c = await connect('deployer');
    const events = await collect(
      c.sendMessageStream(sendRequestV1(userMessageV1('api to staging')), within(5000)),
      5000,
      'stream',
    );
    const progress = statusTexts(events).filter((s) => s.startsWith('Deploy progress:'));
    expect(progress.length).toBeGreaterThanOrEqual(3);
    expect(trace(events).slice(-2)).toEqual(['artifact+last', 'status:COMPLETED']);
  });

  it('keeps WORKING while polled, and can be canceled', async () => {
    const c = await connect('deployer', 'HTTP+JSON');
    const task = asTask(
      await c.sendMessage(sendRequestV1(userMessageV1('slow rollout'), { returnImmediately: true }), within(5000)),
    );
    const working = await pollUntil(
      () => c.getTask({ tenant: '', id: task.id }, within(2000)),
      (t) => t.status?.state === TaskState.TASK_STATE_WORKING,
      2000,
      'WORKING',
    );
    expect(working.id).toBe(task.id);
    const canceled = await c.cancelTask({ tenant: '', id: task.id, metadata: undefined }, within(3000));
    expect(stateName(canceled.status?.state)).toBe('CANCELED');
  });
});

describe('demo client', () => {
  it('prints the shape of each reply: direct message, then a task asking, then completed', async () => {
    const lines: string[] = [];
    const outcomes = await withDeadline(
      runDemoAgainst(asBase(fleet.agents['code-reviewer']), (l) => lines.push(l)),
      10_000,
      'demo',
    );
    expect(outcomes.map((o) => `${o.shape}${o.state ? ` ${o.state}` : ''}`)).toEqual([
      'message',
      'task INPUT_REQUIRED',
      'task COMPLETED',
    ]);
    expect(outcomes[1]?.text).toBe(FOLLOW_UP_QUESTION);
    expect(lines[0]).toMatch(/^code-reviewer at http:\/\/127\.0\.0\.1:\d+\/ \(JSONRPC, A2A 1\.0\)$/);
    expect(lines.join('\n')).toContain('-> direct message: "Yes, within reason');
    expect(lines.join('\n')).toMatch(/-> task [0-9a-f]{8}… INPUT_REQUIRED: "Should I focus on security or style\?"/);
  });
});
