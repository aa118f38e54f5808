/**
 * The replica health state machine (src/transport/replica-health.ts): active check thresholds,
 * passive ejection for `ejectionTime` (fake timers: the ejection's end is a timer), an active pass
 * ending an ejection sooner, passive ejection off at 0, one change event per change.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ReplicaHealth, type HealthChange, type HealthPolicy } from '../../src/transport/replica-health.js';

const policy: HealthPolicy = {
  healthyThreshold: 2,
  unhealthyThreshold: 3,
  consecutiveFailures: 3,
  ejectionTime: 30_000,
};

function health(overrides: Partial<HealthPolicy> = {}): { h: ReplicaHealth; changes: HealthChange[] } {
  const h = new ReplicaHealth(false, { ...policy, ...overrides });
  const changes: HealthChange[] = [];
  h.onChange = (change) => changes.push(change);
  return { h, changes };
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('active checks', () => {
  it('turns unhealthy at unhealthyThreshold failures in a row, and healthy again at healthyThreshold passes', () => {
    const { h, changes } = health();
    h.checked(false, 'ECONNREFUSED');
    h.checked(false, 'ECONNREFUSED');
    expect(h.state).toBe('healthy');
    h.checked(true, 'HTTP 200'); // a pass resets the failures
    h.checked(false, 'HTTP 503');
    h.checked(false, 'HTTP 503');
    expect(h.state).toBe('healthy');
    h.checked(false, 'HTTP 503');
    expect(h.state).toBe('unhealthy');
    expect(h.healthy).toBe(false);
    h.checked(true, 'HTTP 200');
    expect(h.state).toBe('unhealthy');
    h.checked(true, 'HTTP 200');
    expect(h.state).toBe('healthy');
    expect(changes.map((c) => [c.from, c.to])).toEqual([
      ['healthy', 'unhealthy'],
      ['unhealthy', 'healthy'],
    ]);
    expect(changes[0]!.reason).toContain('HTTP 503');
    expect(h.lastCheck).toMatchObject({ ok: true, detail: 'HTTP 200' });
  });

  it('tells no change while the state stays (more failures when unhealthy)', () => {
    const { h, changes } = health({ unhealthyThreshold: 1 });
    for (let i = 0; i < 5; i++) h.checked(false, 'timeout');
    expect(changes).toHaveLength(1);
  });
});

describe('passive ejection', () => {
  it('ejects after consecutiveFailures live failures for ejectionTime, then takes the replica back', () => {
    const { h, changes } = health();
    h.called(false, 'UPSTREAM_UNREACHABLE');
    h.called(false, 'UPSTREAM_UNREACHABLE');
    h.called(true, 'HTTP 200'); // an answered call resets the count
    h.called(false, 'HTTP 502');
    h.called(false, 'HTTP 502');
    expect(h.state).toBe('healthy');
    h.called(false, 'HTTP 502');
    expect(h.state).toBe('ejected');
    expect(changes.at(-1)).toMatchObject({ from: 'healthy', to: 'ejected' });
    expect(changes.at(-1)!.reason).toContain('3 live calls failed');
    vi.advanceTimersByTime(29_999);
    expect(h.state).toBe('ejected');
    vi.advanceTimersByTime(1);
    expect(h.state).toBe('healthy');
    expect(changes.at(-1)).toMatchObject({ from: 'ejected', to: 'healthy' });
    // Back in service with a clean count: one failure does not eject it again.
    h.called(false, 'HTTP 502');
    expect(h.state).toBe('healthy');
  });

  it('ends an ejection sooner at healthyThreshold active passes counted from the ejection', () => {
    const { h } = health();
    h.checked(true, 'HTTP 200');
    h.checked(true, 'HTTP 200'); // passes before the ejection do not count for it
    for (let i = 0; i < 3; i++) h.called(false, 'UPSTREAM_RESET');
    expect(h.state).toBe('ejected');
    h.checked(true, 'HTTP 200');
    expect(h.state).toBe('ejected');
    h.checked(true, 'HTTP 200');
    expect(h.state).toBe('healthy');
    vi.advanceTimersByTime(60_000); // the ejection's timer was cleared: no second change
    expect(h.state).toBe('healthy');
  });

  it('an ejected replica whose checks fail turns unhealthy, and the ejection timer no longer brings it back', () => {
    const { h } = health({ unhealthyThreshold: 1 });
    for (let i = 0; i < 3; i++) h.called(false, 'UPSTREAM_UNREACHABLE');
    h.checked(false, 'ECONNREFUSED');
    expect(h.state).toBe('unhealthy');
    vi.advanceTimersByTime(60_000);
    expect(h.state).toBe('unhealthy');
  });

  it('is off with consecutiveFailures 0', () => {
    const { h, changes } = health({ consecutiveFailures: 0 });
    for (let i = 0; i < 100; i++) h.called(false, 'HTTP 500');
    expect(h.state).toBe('healthy');
    expect(changes).toEqual([]);
  });

  it('stop() clears the ejection timer and the listener', () => {
    const { h, changes } = health();
    for (let i = 0; i < 3; i++) h.called(false, 'HTTP 500');
    h.stop();
    vi.advanceTimersByTime(60_000);
    expect(h.state).toBe('ejected');
    expect(changes).toHaveLength(1);
  });
});

describe('carried over a reload', () => {
  it('keeps an unhealthy replica unhealthy while checks are on; with checks off it starts healthy', () => {
    const { h: before } = health({ unhealthyThreshold: 1 });
    before.checked(false, 'ECONNREFUSED');
    const on = new ReplicaHealth(false, policy);
    on.carryOver(before, true);
    expect(on.state).toBe('unhealthy');
    expect(on.checkFailures).toBe(1);
    expect(on.lastCheck).toMatchObject({ ok: false, detail: 'ECONNREFUSED' });
    const off = new ReplicaHealth(false, policy);
    off.carryOver(before, false);
    expect(off.state).toBe('healthy');
  });

  it('keeps an ejection until its end, then takes the replica back', () => {
    const { h: before } = health();
    for (let i = 0; i < 3; i++) before.called(false, 'HTTP 500');
    vi.advanceTimersByTime(10_000);
    const after = new ReplicaHealth(false, policy);
    const changes: HealthChange[] = [];
    after.onChange = (change) => changes.push(change);
    after.carryOver(before, true);
    before.stop();
    expect(after.state).toBe('ejected');
    vi.advanceTimersByTime(19_999);
    expect(after.state).toBe('ejected');
    vi.advanceTimersByTime(1);
    expect(after.state).toBe('healthy');
    expect(changes).toMatchObject([{ from: 'ejected', to: 'healthy' }]);
  });
});
