/**
 * The shared keepalive timer (src/bindings/http/keepalive-wheel.ts): an entry is told after a full period
 * of quiet and every period after that, a touch starts its quiet time again, and one timer serves
 * every entry of a period. Fake timers and a fake clock: the wheel's own schedule, no sockets.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { KeepaliveWheel, keepaliveWheel, type QuietEntry } from '../../src/bindings/http/keepalive-wheel.js';

function entry(name: string, log: string[]): QuietEntry {
  return {
    onQuiet: () => log.push(`${name}@${Date.now()}`),
    quietWheel: undefined,
    quietPrev: undefined,
    quietNext: undefined,
    quietDue: 0,
  };
}

describe('KeepaliveWheel', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 0 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const wheel = (ms: number) => new KeepaliveWheel(ms, () => Date.now());

  it('tells a quiet entry after each full period, on one timer for all entries', () => {
    const log: string[] = [];
    const w = wheel(1000);
    const a = entry('a', log);
    const b = entry('b', log);
    w.add(a);
    vi.advanceTimersByTime(300);
    w.add(b);
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(2700);
    expect(log).toEqual(['a@1000', 'b@1300', 'a@2000', 'b@2300', 'a@3000']);
    expect(vi.getTimerCount()).toBe(1);
  });

  it('counts the quiet time from the last touch', () => {
    const log: string[] = [];
    const w = wheel(1000);
    const a = entry('a', log);
    w.add(a);
    for (let t = 0; t < 5; t++) {
      vi.advanceTimersByTime(900);
      w.touch(a); // activity every 900 ms: never a full period of quiet
    }
    expect(log).toEqual([]);
    vi.advanceTimersByTime(999);
    expect(log).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(log).toEqual(['a@5500']);
  });

  it('keeps the order of due times when entries are touched out of order', () => {
    const log: string[] = [];
    const w = wheel(1000);
    const [a, b, c] = ['a', 'b', 'c'].map((n) => entry(n, log));
    w.add(a!);
    vi.advanceTimersByTime(100);
    w.add(b!);
    vi.advanceTimersByTime(100);
    w.add(c!);
    vi.advanceTimersByTime(100);
    w.touch(a!); // a now due at 1300, after b (1100) and c (1200)
    vi.advanceTimersByTime(1000);
    expect(log).toEqual(['b@1100', 'c@1200', 'a@1300']);
  });

  it('stops telling an entry once removed, and drops its timer when empty', () => {
    const log: string[] = [];
    const w = wheel(500);
    const a = entry('a', log);
    const b = entry('b', log);
    w.add(a);
    w.add(b);
    vi.advanceTimersByTime(500);
    w.remove(a);
    w.remove(a); // twice is harmless
    vi.advanceTimersByTime(500);
    expect(log).toEqual(['a@500', 'b@500', 'b@1000']);
    expect(w.size).toBe(1);
    w.remove(b);
    expect(w.size).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
    w.touch(b); // not on the wheel any more: ignored
    vi.advanceTimersByTime(5000);
    expect(log).toHaveLength(3);
  });

  it('goes on with the other entries when one of them throws', () => {
    const log: string[] = [];
    const w = wheel(100);
    const bad = entry('bad', log);
    bad.onQuiet = () => {
      throw new Error('boom');
    };
    w.add(bad);
    w.add(entry('ok', log));
    vi.advanceTimersByTime(200);
    expect(log).toEqual(['ok@100', 'ok@200']);
  });

  it('ends a sweep with a period of a millisecond', () => {
    const log: string[] = [];
    const w = wheel(1);
    w.add(entry('a', log));
    vi.advanceTimersByTime(3);
    expect(log).toEqual(['a@1', 'a@2', 'a@3']);
  });

  it('an entry removed by an earlier entry in the same sweep is not told', () => {
    const log: string[] = [];
    const w = wheel(100);
    const b = entry('b', log);
    const a = entry('a', log);
    a.onQuiet = () => {
      log.push('a');
      w.remove(b);
    };
    w.add(a);
    w.add(b);
    vi.advanceTimersByTime(100);
    expect(log).toEqual(['a']);
  });

  it('shares one wheel per period', () => {
    expect(keepaliveWheel(15_000)).toBe(keepaliveWheel(15_000));
    expect(keepaliveWheel(15_000)).not.toBe(keepaliveWheel(1000));
  });
});
