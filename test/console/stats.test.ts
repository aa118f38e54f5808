/** The console's stats observer (src/console/stats.ts) on hand-made records with a fake clock:
 * minutes roll over and fall out of the window, unknown agents cost nothing, streams are counted
 * while open, a reload's agent list is followed, findings keep their 10 latest. */
import { describe, expect, it } from 'vitest';
import { ConsoleStats } from '../../src/console/stats.js';
import { latencyBucket, quantileMs, LATENCY_BUCKETS } from '../../src/console/latency-histogram.js';
import { facts, fakeExchange, record } from '../telemetry/support/records.js';

const MINUTE = 60_000;

function setup(agents = ['reviewer']) {
  let now = 100 * MINUTE;
  const stats = new ConsoleStats(agents, () => now);
  const finish = (partial: Parameters<typeof record>[0]) => stats.observer.onFinish!(fakeExchange(record(partial)));
  return { stats, finish, advance: (ms: number) => void (now += ms) };
}

describe('console stats', () => {
  it('counts by kind per minute, the current minute last, and lets minutes fall out of the hour', () => {
    const { stats, finish, advance } = setup();
    finish({ a2a: facts({ kind: 'message' }) });
    advance(MINUTE);
    finish({ a2a: facts({ kind: 'task' }) });
    finish({ a2a: facts({ kind: 'error' }) });
    finish({});
    let w = stats.window('reviewer')!;
    expect(w.perMinute.message).toHaveLength(60);
    expect(w.perMinute.message.slice(-2)).toEqual([1, 0]);
    expect(w.perMinute.task.slice(-2)).toEqual([0, 1]);
    expect(w.totals).toEqual({ message: 1, task: 1, error: 1, other: 1 });
    advance(59 * MINUTE); // the first minute is now out of the window; its slot is reused
    finish({ a2a: facts({ kind: 'task' }) });
    w = stats.window('reviewer')!;
    expect(w.totals).toEqual({ message: 0, task: 2, error: 1, other: 1 });
    expect(w.perMinute.task[0]).toBe(1);
  });

  it('drops exchanges of agents not configured and follows the agent list', () => {
    const { stats, finish } = setup();
    finish({ agent: 'stranger', a2a: facts() });
    expect(stats.window('stranger')).toBeUndefined();
    expect(stats.agentNames()).toEqual(['reviewer']);
    finish({ a2a: facts() });
    stats.setAgents(['reviewer', 'newcomer']);
    expect(stats.window('reviewer')!.totals.message).toBe(1); // kept across the reload
    expect(stats.window('newcomer')!.totals.message).toBe(0);
    stats.setAgents(['newcomer']);
    expect(stats.window('reviewer')).toBeUndefined();
  });

  it('counts SSE responses from their start to their finish', () => {
    const { stats } = setup();
    const exchange = fakeExchange(record({ a2a: facts({ operation: 'SendStreamingMessage' }) }));
    stats.observer.onResponseStart!(exchange, 200, { 'content-type': 'text/event-stream' });
    expect(stats.window('reviewer')!.openStreams).toBe(1);
    stats.observer.onFinish!(exchange);
    expect(stats.window('reviewer')!.openStreams).toBe(0);
  });

  it('gives p50/p99 per method from the buckets, and the 10 latest examples per rule', () => {
    const { stats, finish } = setup();
    for (let i = 1; i <= 100; i++) finish({ durationMs: i, a2a: facts({ operation: 'GetTask' }) });
    const [row] = stats.window('reviewer')!.latency;
    expect(row).toMatchObject({ method: 'GetTask', count: 100 });
    expect(row!.p50Ms).toBeGreaterThanOrEqual(50);
    expect(row!.p50Ms).toBeLessThanOrEqual(64);
    expect(row!.p99Ms).toBeGreaterThanOrEqual(99);
    expect(row!.p99Ms).toBeLessThanOrEqual(128);
    for (let i = 0; i < 12; i++)
      finish({ id: `x${i}`, findings: [{ rule: 'a2a.send-result-shape', count: 1, detail: 'both' }] });
    const [rule] = stats.findings.view(stats.minute());
    expect(rule!.count).toBe(12);
    expect(rule!.latest.map((e) => e.exchangeId)).toEqual([
      'x11',
      'x10',
      'x9',
      'x8',
      'x7',
      'x6',
      'x5',
      'x4',
      'x3',
      'x2',
    ]);
    expect(stats.window('reviewer')!.findingsLastHour).toBe(12);
  });

  it('keeps latency buckets within the fixed array', () => {
    expect(latencyBucket(0)).toBe(0);
    expect(latencyBucket(1e12)).toBe(LATENCY_BUCKETS - 1);
    expect(quantileMs(new Uint32Array(LATENCY_BUCKETS), 0, 0.5)).toBe(0);
  });
});
