/**
 * A stand-in for /console/api/* with canned answers in the data contract's shapes
 * (src/console/api-types.ts), beside the real page serving: lets the browser tests draw every
 * view with data before the data routes exist. The feed sends `exchanges` then stays open.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Hono } from 'hono';
import { getRequestListener } from '@hono/node-server';
import { mountConsolePage } from '../../../src/console/page.js';
import type {
  ConsoleSettings,
  ExchangeSummary,
  FindingsView,
  FleetView,
  TaskTimeline,
} from '../../../src/console/api-types.js';

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);

export const FLEET: FleetView = {
  at: T0,
  windowMinutes: 15,
  agents: [
    {
      name: 'code-reviewer',
      reachable: true,
      protocolVersions: ['1.0', '0.3'],
      bindings: ['JSONRPC', 'HTTP+JSON'],
      perMinute: { message: [0, 1, 2, 1, 0], task: [1, 0, 3, 2, 1], error: [0, 0, 1, 0, 0] },
      totals: { message: 4, task: 7, error: 1, other: 2 },
      tasksByState: { TASK_STATE_WORKING: 1, TASK_STATE_COMPLETED: 3 },
      latency: [{ method: 'SendMessage', count: 11, p50Ms: 42, p99Ms: 1250 }],
      openStreams: 1,
      findingsLastHour: 2,
    },
    {
      name: 'deployer',
      reachable: false,
      cardError: 'connect ECONNREFUSED',
      protocolVersions: [],
      bindings: [],
      perMinute: { message: [0, 0, 0, 0, 0], task: [0, 0, 0, 0, 0], error: [0, 0, 0, 0, 2] },
      totals: { message: 0, task: 0, error: 2, other: 0 },
      tasksByState: {},
      latency: [],
      openStreams: 0,
      findingsLastHour: 0,
    },
  ],
};

const exchange = (id: string, over: Partial<ExchangeSummary>): ExchangeSummary => ({
  id,
  agent: 'code-reviewer',
  startedAt: T0,
  durationMs: 120,
  method: 'SendMessage',
  binding: 'JSONRPC',
  version: '1.0',
  kind: 'task',
  taskId: 'task-a',
  state: 'TASK_STATE_WORKING',
  status: 200,
  bytesIn: 300,
  bytesOut: 2048,
  findings: [],
  outcome: 'complete',
  ...over,
});

export const EXCHANGES: ExchangeSummary[] = [
  exchange('1', { kind: 'message', taskId: undefined, state: undefined }),
  exchange('2', { method: 'SendStreamingMessage', streamEvents: 5, state: 'TASK_STATE_INPUT_REQUIRED' }),
  exchange('3', {
    agent: 'deployer',
    kind: 'error',
    method: 'GetTask',
    binding: 'HTTP+JSON',
    findings: ['task-state-regression'],
    rescue: { strategy: 'subscribe', outcome: 'upgraded' },
    traceId: '0af7651916cd43dd8448eb211c80319c',
  }),
];

export const FINDINGS: FindingsView = {
  windowMinutes: 60,
  rules: [
    {
      rule: 'task-state-regression',
      section: '§4.1.3',
      severity: 'warning',
      description: 'A task went back from a terminal state.',
      count: 2,
      latest: [{ exchangeId: '3', agent: 'deployer', at: T0, detail: 'completed → working' }],
    },
  ],
};

export const timeline = (taskId: string, blocking: boolean): TaskTimeline => ({
  agent: 'code-reviewer',
  taskId,
  firstSeen: T0,
  lastSeen: T0 + 5000,
  durationMs: 5000,
  interruptedMs: { TASK_STATE_INPUT_REQUIRED: 1500 },
  states: [
    { state: 'TASK_STATE_SUBMITTED', at: T0 + 10, shown: !blocking },
    { state: 'TASK_STATE_WORKING', at: T0 + 500, shown: false },
    { state: 'TASK_STATE_INPUT_REQUIRED', at: T0 + 1500, shown: true },
    { state: 'TASK_STATE_COMPLETED', at: T0 + 5000, shown: true },
  ],
  calls: [
    {
      exchangeId: '1',
      method: 'SendMessage',
      startedAt: T0,
      endedAt: blocking ? T0 + 1500 : T0 + 20,
      blocking,
      stream: false,
      states: [{ state: 'TASK_STATE_INPUT_REQUIRED', at: T0 + 1500 }],
      artifactsAt: [],
    },
    {
      exchangeId: '2',
      method: 'SendStreamingMessage',
      startedAt: T0 + 3000,
      endedAt: T0 + 5000,
      stream: true,
      rescue: 'upgraded',
      states: [{ state: 'TASK_STATE_COMPLETED', at: T0 + 5000 }],
      artifactsAt: [T0 + 4000, T0 + 4500],
    },
  ],
});

const SETTINGS: ConsoleSettings = { version: '0.2.0', workers: 1, traceUrl: 'https://jaeger.example/trace/{traceId}' };

function stubApp(): Hono {
  const app = new Hono();
  app.get('/console/api/config', (c) => c.json(SETTINGS));
  app.get('/console/api/fleet', (c) => c.json(FLEET));
  app.get('/console/api/findings', (c) => c.json(FINDINGS));
  app.get('/console/api/exchanges/:id', (c) => {
    const summary = EXCHANGES.find((e) => e.id === c.req.param('id'));
    return summary
      ? c.json({ summary, record: { id: summary.id, request: { method: summary.method } } })
      : c.json({}, 404);
  });
  app.get('/console/api/tasks/:agent/:taskId', (c) =>
    c.json(timeline(c.req.param('taskId'), c.req.param('taskId') === 'blocking')),
  );
  app.get('/console/api/feed', () => {
    // Past console.feed.maxRate the gateway counts what it did not send (src/console/feed.ts).
    const text =
      EXCHANGES.map((e) => `event: exchange\ndata: ${JSON.stringify(e)}\n\n`).join('') +
      'event: skipped\ndata: {"count":42}\n\n';
    const body = new ReadableStream<Uint8Array>({ start: (ctl) => ctl.enqueue(new TextEncoder().encode(text)) });
    return new Response(body, { headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' } });
  });
  mountConsolePage(app);
  return app;
}

export async function startStubConsole(): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer(getRequestListener(stubApp().fetch));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
