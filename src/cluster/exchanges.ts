/**
 * `/exchanges` in worker mode: each worker remembers only the exchanges it served
 * (src/inspect/recent.ts), so the primary asks them all with the same query and merges the
 * answers here, newest first, tagging each record with the pid of the worker that served it.
 * Pure: test/cluster/exchanges.test.ts.
 */
import type { ExchangeRecord } from '../exchange/record.js';
import type { RecentQuery } from '../inspect/recent.js';

/** A record as `/exchanges` lists it in worker mode: `worker` is the serving worker's pid. */
export type WorkerExchange = ExchangeRecord & { readonly worker: number };

export interface WorkerAnswer {
  readonly pid: number;
  readonly exchanges: readonly ExchangeRecord[];
}

/** When an exchange finished: the order RecentExchanges keeps within one worker. */
const finishedAt = (r: ExchangeRecord) => r.startedAt + r.durationMs;

/** Newest first (by finish time), at most `limit` (as RecentExchanges.find: 1 ≤ limit ≤ capacity). */
export function mergeExchanges(
  answers: readonly WorkerAnswer[],
  query: RecentQuery,
  capacity: number,
): WorkerExchange[] {
  const limit = Math.max(1, Math.min(query.limit ?? 50, capacity));
  const all = answers.flatMap(({ pid, exchanges }) => exchanges.map((r) => ({ ...r, worker: pid })));
  // Array.prototype.sort is stable: within one worker, equal times keep the worker's own order.
  return all.sort((a, b) => finishedAt(b) - finishedAt(a)).slice(0, limit);
}
