/**
 * The bench's report reads failures plainly (bench/lib/markdown.mjs, bench/lib/measure.mjs): a
 * fan-in's refused streams show in the errors column, and no RSS figure is taken from a round
 * that did not carry what it measures. Scenario 10 once read "0 errors" over 4,885 streams
 * answered 502 (bench/ANALYSIS.md).
 */
import { describe, expect, it } from 'vitest';
// @ts-expect-error: the bench harness is plain ESM JavaScript without types
import { measurement } from '../../bench/lib/markdown.mjs';
// @ts-expect-error: the bench harness is plain ESM JavaScript without types
import { failureSummary } from '../../bench/lib/measure.mjs';

type Round = Record<string, unknown>;
const results = (key: string, rounds: Round[]) => ({ scenarios: { [key]: { byPath: { gateway: { rounds } } } } });
const read = (key: string, rounds: Round[]) => measurement(results(key, rounds), key);

describe('bench report', () => {
  it('names how fan-in streams failed, grouped, most common first', () => {
    const failures = [
      ...Array.from({ length: 3 }, () => ({ status: 502, events: 0, error: null })),
      { status: 200, events: 1, error: null },
      { status: 200, events: 0, error: 'stream timed out after 5 ms' },
    ];
    expect(failureSummary(failures)).toBe(
      '3 × HTTP 502, 0 events; 1 × ended early, 1 events; 1 × error "stream timed out after 5 ms", 0 events',
    );
    expect(failureSummary([])).toBeNull();
  });

  it('a fan-in round with failed streams shows them in the errors column, once', () => {
    const m = read('s10_fanin_scale', [
      { failed: 4885, failedHow: '4885 × HTTP 502, 0 events', complete: false, rssPeakMB: 200 },
    ]);
    expect(m.errors('gateway')).toBe('4885 streams failed (4885 × HTTP 502, 0 events)');
    expect(read('s10_fanin_scale', [{ failed: 0, complete: true, rssPeakMB: 380 }]).errors('gateway')).toBe('0');
  });

  it('takes no RSS figure from a refused transfer or a fan-in whose streams failed', () => {
    const s5 = read('s5_unary', [
      { complete: false, rssGrowthMB: 0.1 },
      { complete: true, rssGrowthMB: 37.9 },
    ]);
    expect(s5.worst('gateway', 'rssGrowthMB')).toBe(37.9);
    expect(read('s5_unary', [{ complete: false, rssGrowthMB: 0.1 }]).worst('gateway', 'rssGrowthMB')).toBeNull();
    const s10 = read('s10_fanin_scale', [{ failed: 12, complete: false, rssPeakMB: 200 }]);
    expect(s10.worst('gateway', 'rssPeakMB')).toBeNull();
  });
});
