/** The composition the gateway wires: metrics and traces from one call, fed by a real gateway. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPeerV1 } from '../peers/peer-v1.js';
import type { Peer } from '../peers/peer-common.js';
import { clientV1, sendRequestV1, userMessageV1 } from '../peers/clients.js';
import { within, withDeadline } from '../peers/deadline.js';
import { asTask } from '../peers/inspect.js';
import { startTestGateway } from '../support/gateway.js';
import type { RunningGateway } from '../../src/gateway/gateway.js';
import type { ExchangeObserver } from '../../src/exchange/exchange.js';
import { TaskTracker } from '../../src/tasks/tracker.js';
import { InMemoryTaskStore } from '../../src/tasks/memory-store.js';
import { createTelemetry, type Telemetry } from '../../src/telemetry/telemetry.js';
import { startOtlpReceiver, type OtlpReceiver } from './support/otlp-receiver.js';

let peer: Peer;
let receiver: OtlpReceiver;
let gateway: RunningGateway;
let telemetry: Telemetry;

beforeAll(async () => {
  [peer, receiver] = await Promise.all([startPeerV1({ stepMs: 10 }), startOtlpReceiver()]);
  // The gateway makes its tracker inside; the observers are handed over before that, so they
  // forward to the telemetry created once the tracker exists.
  let inner: readonly ExchangeObserver[] = [];
  const relay: ExchangeObserver = {
    onForward: (e, h) => inner.forEach((o) => o.onForward?.(e, h)),
    onResponseChunk: (e, c) => inner.forEach((o) => o.onResponseChunk?.(e, c)),
    onFinish: (e) => inner.forEach((o) => o.onFinish?.(e)),
  };
  gateway = await startTestGateway({ reviewer: { url: peer.url } }, {}, [relay]);
  telemetry = createTelemetry({
    agents: ['reviewer'],
    tracker: gateway.tracker,
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '20' },
    serviceVersion: '1.2.3',
  });
  inner = telemetry.observers;
});

afterAll(async () => {
  await gateway?.close();
  await telemetry?.shutdown();
  await Promise.all([peer?.close(), receiver?.close()]);
});

describe('createTelemetry', () => {
  it('is metrics only when no OTEL_* variable configures an exporter', () => {
    const off = createTelemetry({
      agents: ['a'],
      tracker: new TaskTracker(new InMemoryTaskStore({ maxTasks: 1, ttlMs: 1 })),
      env: {},
      processMetrics: false,
    });
    expect(off.tracingEnabled).toBe(false);
    expect(off.observers).toHaveLength(1);
    const none = createTelemetry({
      agents: ['a'],
      tracker: new TaskTracker(new InMemoryTaskStore({ maxTasks: 1, ttlMs: 1 })),
      env: {},
      metrics: false,
    });
    expect(none.observers).toHaveLength(0);
  });

  it('counts, gauges and traces the exchanges of a real gateway', async () => {
    expect(telemetry.tracingEnabled).toBe(true);
    const client = await withDeadline(
      clientV1(`${gateway.url}/agents/reviewer/`, { transport: 'JSONRPC' }),
      5000,
      'card',
    );
    const task = asTask(await client.sendMessage(sendRequestV1(userMessageV1('process this')), within(5000)));
    const text = await (await telemetry.metricsHandler()).text();
    expect(text).toMatch(
      /a2a_requests_total\{agent="reviewer",method="SendMessage",binding="jsonrpc",version="1.0",kind="task",state="TASK_STATE_COMPLETED"\} 1/,
    );
    expect(text).toMatch(/a2a_tasks\{agent="reviewer",state="TASK_STATE_COMPLETED"\} 1/);
    expect(text).toMatch(/a2a_task_duration_seconds_count\{agent="reviewer",state="TASK_STATE_COMPLETED"\} 1/);

    await telemetry.shutdown();
    expect(
      receiver.spans.some(
        (s) => s.kind === 2 && s.attributes['a2a.task.id'] === task.id && s.resource['service.version'] === '1.2.3',
      ),
    ).toBe(true);
  });
});
