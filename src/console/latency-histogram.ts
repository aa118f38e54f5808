/**
 * A fixed-bucket latency histogram for the console's p50/p99 (src/console/stats.ts): log-spaced
 * buckets, three per doubling from 1 ms (each bucket's bound is ~26 % above the previous), so a
 * minute of one method is 64 counters whatever the traffic — no per-request arrays. A quantile is
 * reported as the upper bound of the bucket it falls in (at most ~26 % high).
 */

export const LATENCY_BUCKETS = 64;
const PER_DOUBLING = 3;

/** The bucket of a duration in milliseconds: 0 holds ≤ 1 ms, the last one everything above. */
export function latencyBucket(ms: number): number {
  if (!(ms > 1)) return 0;
  const index = Math.ceil(Math.log2(ms) * PER_DOUBLING);
  return index < LATENCY_BUCKETS ? index : LATENCY_BUCKETS - 1;
}

/** The upper bound of a bucket, in whole milliseconds. */
export function bucketBoundMs(index: number): number {
  return Math.round(2 ** (index / PER_DOUBLING));
}

/** The `q` quantile (0..1) of the summed counts; 0 when there are none. */
export function quantileMs(counts: ArrayLike<number>, total: number, q: number): number {
  if (total === 0) return 0;
  const rank = Math.max(1, Math.ceil(q * total));
  let seen = 0;
  for (let i = 0; i < counts.length; i++) {
    seen += counts[i]!;
    if (seen >= rank) return bucketBoundMs(i);
  }
  return bucketBoundMs(counts.length - 1);
}
