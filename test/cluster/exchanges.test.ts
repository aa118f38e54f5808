/** Merging the workers' recent exchanges for /exchanges (src/cluster/exchanges.ts). */
import { describe, expect, it } from 'vitest';
import { mergeExchanges } from '../../src/cluster/exchanges.js';
import type { ExchangeRecord } from '../../src/exchange/record.js';

const record = (path: string, startedAt: number, durationMs: number): ExchangeRecord =>
  ({ agent: 'a', path, startedAt, durationMs }) as ExchangeRecord;

describe('mergeExchanges', () => {
  // Each worker's answer is already newest first (by finish time), as RecentExchanges keeps it.
  const one = [record('/a3', 300, 5), record('/a2', 100, 150), record('/a1', 100, 10)];
  const two = [record('/b2', 200, 0), record('/b1', 50, 0)];

  it('interleaves the workers newest first by finish time, tagging each with its worker', () => {
    const merged = mergeExchanges(
      [
        { pid: 11, exchanges: one },
        { pid: 22, exchanges: two },
      ],
      {},
      200,
    );
    expect(merged.map((r) => [r.path, r.worker])).toEqual([
      ['/a3', 11],
      ['/a2', 11],
      ['/b2', 22],
      ['/a1', 11],
      ['/b1', 22],
    ]);
  });

  it('applies the limit as one worker would (at least 1, at most the capacity)', () => {
    const answers = [
      { pid: 11, exchanges: one },
      { pid: 22, exchanges: two },
    ];
    expect(mergeExchanges(answers, { limit: 2 }, 200).map((r) => r.path)).toEqual(['/a3', '/a2']);
    expect(mergeExchanges(answers, { limit: 0 }, 200).map((r) => r.path)).toEqual(['/a3']);
    expect(mergeExchanges(answers, { limit: 50 }, 3)).toHaveLength(3);
    expect(mergeExchanges(answers, {}, 200)).toHaveLength(5);
  });

  it('keeps a worker’s own order for equal finish times, and copes with no answers', () => {
    const tied = [record('/new', 100, 0), record('/old', 100, 0)];
    expect(mergeExchanges([{ pid: 1, exchanges: tied }], {}, 200).map((r) => r.path)).toEqual(['/new', '/old']);
    expect(mergeExchanges([], {}, 200)).toEqual([]);
  });
});
