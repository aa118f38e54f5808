import type { RuleId } from '../../../src/a2a/findings.js';
import { describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import { createMetrics } from '../../../src/telemetry/metrics/metrics.js';
import { TaskTracker } from '../../../src/tasks/tracker.js';
import { InMemoryTaskStore } from '../../../src/tasks/memory-store.js';
import type { A2AFacts } from '../../../src/exchange/record.js';
import { facts, fakeExchange, record } from '../support/records.js';
import { labelValues, samples, valueOf } from '../support/registry.js';

function setup(now = () => Date.now()) {
  const registry = new Registry();
  const tracker = new TaskTracker(new InMemoryTaskStore({ maxTasks: 100, ttlMs: 3_600_000 }));
  const metrics = createMetrics(registry, { agents: ['reviewer', 'runner'], processMetrics: false, now });
  metrics.trackTasks(tracker);
  const finish = (...args: Parameters<typeof record>) => metrics.observer.onFinish!(fakeExchange(record(...args)));
  return { registry, tracker, finish };
}

const recorded = () => new Promise((resolve) => setImmediate(resolve));

describe('exchange metrics', () => {
  it('counts a direct message and a task with their operation, binding, version, kind and state', async () => {
    const { registry, finish } = setup();
    finish({ a2a: facts({ kind: 'message', messageId: 'm-1' }), durationMs: 40 });
    finish({
      a2a: facts({ kind: 'task', taskId: 't-1', state: 'TASK_STATE_COMPLETED', binding: 'rest', version: '0.3' }),
    });
    expect(
      await valueOf(registry, 'a2a_requests_total', {
        agent: 'reviewer',
        method: 'SendMessage',
        binding: 'jsonrpc',
        version: '1.0',
        kind: 'message',
        state: 'none',
      }),
    ).toBe(1);
    expect(
      await valueOf(registry, 'a2a_requests_total', {
        kind: 'task',
        binding: 'rest',
        version: '0.3',
        state: 'TASK_STATE_COMPLETED',
      }),
    ).toBe(1);
    expect(
      await valueOf(registry, 'a2a_request_duration_seconds_count', {
        agent: 'reviewer',
        method: 'SendMessage',
        kind: 'message',
      }),
    ).toBe(1);
    expect(await valueOf(registry, 'a2a_request_duration_seconds_sum', { kind: 'message' })).toBeCloseTo(0.04);
  });

  it('labels what inspection could not classify as other, and an unconfigured agent as other', async () => {
    const { registry, finish } = setup();
    finish({ agent: 'not-configured', a2a: undefined });
    finish({ a2a: facts({ operation: 'unknown', kind: 'other' }) });
    finish({
      a2a: { ...facts(), operation: 'tasks/explode' as A2AFacts['operation'], state: 'EXPLODED' as A2AFacts['state'] },
    });
    const values = await labelValues(registry);
    expect([...values.get('agent')!]).not.toContain('not-configured');
    expect(
      await valueOf(registry, 'a2a_requests_total', {
        agent: 'other',
        method: 'other',
        binding: 'other',
        version: 'other',
        kind: 'other',
        state: 'none',
      }),
    ).toBe(1);
    expect(
      await valueOf(registry, 'a2a_requests_total', {
        agent: 'reviewer',
        method: 'other',
        kind: 'message',
        state: 'other',
      }),
    ).toBe(1);
  });

  it('counts stream events by kind and the time to the first one', async () => {
    const { registry, finish } = setup();
    const stream = {
      events: { task: 1, message: 0, statusUpdate: 2, artifactUpdate: 2, error: 0 },
      firstEventMs: 30,
      agentKeepalives: 3,
    };
    finish({ a2a: facts({ operation: 'SendStreamingMessage', kind: 'task', state: 'TASK_STATE_COMPLETED', stream }) });
    expect(
      await valueOf(registry, 'a2a_stream_events_total', { method: 'SendStreamingMessage', event: 'statusUpdate' }),
    ).toBe(2);
    expect(await valueOf(registry, 'a2a_stream_events_total', { event: 'task' })).toBe(1);
    expect(await valueOf(registry, 'a2a_stream_events_total', { event: 'message' })).toBeUndefined();
    expect(
      await valueOf(registry, 'a2a_stream_first_event_seconds_sum', { method: 'SendStreamingMessage' }),
    ).toBeCloseTo(0.03);
  });

  it('counts upstream failures by reason and client aborts by method', async () => {
    const { registry, finish } = setup();
    finish({
      outcome: 'upstream-error',
      status: 502,
      error: { reason: 'UPSTREAM_UNREACHABLE', message: 'ECONNREFUSED' },
    });
    finish({ outcome: 'gateway-error', status: 502, error: { reason: 'UPSTREAM_RESET', message: 'reset' } });
    finish({
      outcome: 'client-gone',
      a2a: facts({ operation: 'SendStreamingMessage' }),
      error: { reason: 'CLIENT_GONE', message: 'gone' },
    });
    expect(
      await valueOf(registry, 'a2a_upstream_errors_total', { agent: 'reviewer', reason: 'UPSTREAM_UNREACHABLE' }),
    ).toBe(1);
    expect(await valueOf(registry, 'a2a_upstream_errors_total', { agent: 'reviewer', reason: 'UPSTREAM_RESET' })).toBe(
      1,
    );
    expect(await valueOf(registry, 'a2a_upstream_errors_total', { agent: 'runner', reason: 'UPSTREAM_TIMEOUT' })).toBe(
      0,
    );
    expect(
      await valueOf(registry, 'a2a_client_aborts_total', { agent: 'reviewer', method: 'SendStreamingMessage' }),
    ).toBe(1);
  });

  it('counts findings by rule, and starts every known rule at zero', async () => {
    const { registry, finish } = setup();
    finish({
      findings: [
        { rule: 'a2a.version-header-missing', count: 1, detail: 'no A2A-Version' },
        { rule: 'made.up-rule' as RuleId, count: 1 },
      ],
    });
    expect(
      await valueOf(registry, 'a2a_findings_total', { agent: 'reviewer', rule: 'a2a.version-header-missing' }),
    ).toBe(1);
    expect(await valueOf(registry, 'a2a_findings_total', { agent: 'reviewer', rule: 'other' })).toBe(1);
    expect(await valueOf(registry, 'a2a_findings_total', { agent: 'runner', rule: 'a2a.invalid-json' })).toBe(0);
  });
});

describe('task metrics', () => {
  it('observes task duration at the terminal state and time spent waiting for input', async () => {
    const { registry, tracker } = setup();
    tracker.observe('reviewer', 't-1', { state: 'TASK_STATE_SUBMITTED', at: 1_000, shown: true });
    tracker.observe('reviewer', 't-1', { state: 'TASK_STATE_INPUT_REQUIRED', at: 2_000, shown: true });
    tracker.observe('reviewer', 't-1', { state: 'TASK_STATE_WORKING', at: 7_000, shown: true });
    tracker.observe('reviewer', 't-1', { state: 'TASK_STATE_COMPLETED', at: 11_000, shown: true });
    await recorded(); // the store hands its events over asynchronously (src/tasks/tracker.ts)
    expect(
      await valueOf(registry, 'a2a_task_interrupted_seconds_sum', {
        agent: 'reviewer',
        state: 'TASK_STATE_INPUT_REQUIRED',
      }),
    ).toBe(5);
    expect(
      await valueOf(registry, 'a2a_task_duration_seconds_sum', { agent: 'reviewer', state: 'TASK_STATE_COMPLETED' }),
    ).toBe(10);
    expect(
      await valueOf(registry, 'a2a_task_duration_seconds_count', { agent: 'reviewer', state: 'TASK_STATE_COMPLETED' }),
    ).toBe(1);
  });

  it('reports tracked tasks by current state and the oldest unfinished one, at scrape time', async () => {
    let now = 100_000;
    const { registry, tracker } = setup(() => now);
    tracker.observe('runner', 'a', { state: 'TASK_STATE_WORKING', at: 10_000, shown: true });
    tracker.observe('runner', 'b', { state: 'TASK_STATE_WORKING', at: 40_000, shown: true });
    tracker.observe('runner', 'c', { state: 'TASK_STATE_INPUT_REQUIRED', at: 50_000, shown: true });
    tracker.observe('runner', 'd', { state: 'TASK_STATE_COMPLETED', at: 60_000, shown: true });
    await recorded();
    expect(await valueOf(registry, 'a2a_tasks', { agent: 'runner', state: 'TASK_STATE_WORKING' })).toBe(2);
    expect(await valueOf(registry, 'a2a_tasks', { agent: 'runner', state: 'TASK_STATE_COMPLETED' })).toBe(1);
    expect(await valueOf(registry, 'a2a_tasks', { agent: 'reviewer', state: 'TASK_STATE_WORKING' })).toBe(0);
    expect(
      await valueOf(registry, 'a2a_task_oldest_state_age_seconds', { agent: 'runner', state: 'TASK_STATE_WORKING' }),
    ).toBe(90);
    expect(
      await valueOf(registry, 'a2a_task_oldest_state_age_seconds', {
        agent: 'runner',
        state: 'TASK_STATE_INPUT_REQUIRED',
      }),
    ).toBe(50);

    tracker.observe('runner', 'a', { state: 'TASK_STATE_COMPLETED', at: 100_000, shown: true });
    await recorded();
    now = 110_000;
    expect(await valueOf(registry, 'a2a_tasks', { agent: 'runner', state: 'TASK_STATE_WORKING' })).toBe(1);
    expect(
      await valueOf(registry, 'a2a_task_oldest_state_age_seconds', { agent: 'runner', state: 'TASK_STATE_WORKING' }),
    ).toBe(70);
  });
});

describe('cardinality', () => {
  it('a flood of unknown methods, random paths, random task ids and stray agents adds no series', async () => {
    const { registry, tracker, finish } = setup();
    const flood = (n: number, seed: string) => {
      for (let i = 0; i < n; i++) {
        const id = `${seed}-${i}-${Math.random().toString(36).slice(2)}`;
        finish({
          agent: i % 3 === 0 ? `agent-${id}` : 'reviewer',
          path: `/${id}/${id}?x=${id}`,
          a2a: {
            ...facts({ taskId: id, contextId: id, messageId: id }),
            operation: `method/${id}` as A2AFacts['operation'],
            kind: 'error',
          },
          findings: [{ rule: `rule.${id}` as RuleId, count: 1, detail: id }],
          outcome: i % 5 === 0 ? 'upstream-error' : 'complete',
          error: i % 5 === 0 ? { reason: `REASON_${id}`, message: id } : undefined,
        });
        tracker.observe(i % 2 ? 'reviewer' : `agent-${id}`, id, {
          state: 'TASK_STATE_WORKING',
          at: Date.now(),
          shown: true,
        });
      }
    };
    flood(50, 'warm-up');
    const before = (await samples(registry)).length;
    flood(2000, 'flood');
    const after = await samples(registry);
    expect(after.length).toBe(before);
    for (const s of after) for (const v of Object.values(s.labels)) expect(String(v)).not.toMatch(/warm-up|flood/);
  });
});
