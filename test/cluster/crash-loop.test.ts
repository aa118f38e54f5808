/** The primary's crash-loop guard (src/cluster/crash-loop.ts). */
import { describe, expect, it } from 'vitest';
import { DeathWindow } from '../../src/cluster/crash-loop.js';

describe('DeathWindow', () => {
  it('trips on the death past the limit within the window', () => {
    const deaths = new DeathWindow(3, 60_000);
    expect([0, 1000, 2000].map((t) => deaths.record(t))).toEqual([false, false, false]);
    expect(deaths.record(3000)).toBe(true);
  });

  it('forgets deaths older than the window', () => {
    const deaths = new DeathWindow(2, 60_000);
    expect(deaths.record(0)).toBe(false);
    expect(deaths.record(30_000)).toBe(false);
    expect(deaths.record(60_000)).toBe(false); // the death at 0 is out of the window
    expect(deaths.record(61_000)).toBe(true);
  });
});
