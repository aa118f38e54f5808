import { describe, expect, it } from 'vitest';
import { StopSignals } from '../../src/rescue/stop-signals.js';

describe('StopSignals', () => {
  it('the deadline stops the waiting, not the calls that only stop for a client gone', () => {
    const stop = new StopSignals();
    const reason = new Error('deadline');
    stop.deadlineCame(reason);
    expect(stop.either.signal.aborted).toBe(true);
    expect(stop.either.signal.reason).toBe(reason);
    expect(stop.deadlineOnly).toBe(true);
    expect(stop.clientGone.signal.aborted).toBe(false);
  });

  it('a client gone stops everything, and keeps its reason after a later deadline', () => {
    const stop = new StopSignals();
    expect(stop.deadlineOnly).toBe(false);
    const gone = new Error('client gone');
    stop.clientLeft(gone);
    stop.deadlineCame(new Error('deadline'));
    expect(stop.clientGone.signal.aborted).toBe(true);
    expect(stop.either.signal.reason).toBe(gone);
    expect(stop.deadlineOnly).toBe(false);
  });
});
