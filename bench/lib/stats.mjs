// Small statistics helpers: percentiles of samples, median of rounds.

/** Percentile (0–100) of an array of numbers, linear interpolation; null for no samples. */
export function percentile(values, p) {
  if (!values || values.length === 0) return null;
  const a = Float64Array.from(values).sort();
  if (a.length === 1) return a[0];
  const rank = (p / 100) * (a.length - 1);
  const lo = Math.floor(rank);
  const hi = Math.ceil(rank);
  return a[lo] + (a[hi] - a[lo]) * (rank - lo);
}

/** {p50, p90, p99, max, n} of samples. */
export function summary(values) {
  if (!values || values.length === 0) return { p50: null, p90: null, p99: null, max: null, n: 0 };
  const a = Float64Array.from(values).sort();
  const at = (p) => {
    const rank = (p / 100) * (a.length - 1);
    const lo = Math.floor(rank);
    const hi = Math.ceil(rank);
    return a[lo] + (a[hi] - a[lo]) * (rank - lo);
  };
  return { p50: at(50), p90: at(90), p99: at(99), max: a[a.length - 1], n: a.length };
}

/** Median of the non-null numbers in `values`; null if none. */
export function median(values) {
  const v = values.filter((x) => typeof x === 'number' && Number.isFinite(x)).sort((x, y) => x - y);
  if (v.length === 0) return null;
  const m = Math.floor(v.length / 2);
  return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

/** For an array of round objects, the median of each numeric field (fields taken from the first). */
export function medianOfRounds(rounds) {
  const ok = rounds.filter(Boolean);
  if (ok.length === 0) return null;
  const out = {};
  for (const k of Object.keys(ok[0])) {
    if (typeof ok[0][k] === 'number' || ok[0][k] === null) out[k] = median(ok.map((r) => r[k]));
  }
  return out;
}

export function ratio(a, b) {
  if (typeof a !== 'number' || typeof b !== 'number' || b === 0) return null;
  return a / b;
}
