import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { StopSignals } from '../../src/rescue/stop-signals.js';

describe('StopSignals', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('the deadline stops the waiting, not the calls that only stop for a client gone', () => {
    const stop = new StopSignals(Date.now() + 1000);
    vi.advanceTimersByTime(999);
    expect(stop.stoppedWaiting).toBe(false);
    vi.advanceTimersByTime(1);
    expect(stop.stoppedWaiting).toBe(true);
    expect(stop.either.signal.aborted).toBe(true);
    expect(stop.deadlineOnly).toBe(true);
    expect(stop.clientHasLeft).toBe(false);
    expect(stop.clientGone.signal.aborted).toBe(false);
  });

  it('a client gone stops everything, and keeps its reason after a later deadline', () => {
    const stop = new StopSignals(Date.now() + 1000);
    expect(stop.deadlineOnly).toBe(false);
    stop.clientLeft('client gone');
    vi.advanceTimersByTime(1000);
    expect(stop.clientHasLeft).toBe(true);
    expect(stop.clientGone.signal.aborted).toBe(true);
    expect((stop.either.signal.reason as Error).message).toBe('client gone');
    expect(stop.deadlineOnly).toBe(false);
  });

  it('a deadline already past stops the waiting at once; a released one never fires', () => {
    const past = new StopSignals(Date.now() - 5);
    vi.advanceTimersByTime(0);
    expect(past.deadlineOnly).toBe(true);
    const released = new StopSignals(Date.now() + 1000);
    released.release();
    vi.advanceTimersByTime(5000);
    expect(released.stoppedWaiting).toBe(false);
    expect(vi.getTimerCount()).toBe(0);
  });
});
