/**
 * Durations in config are written as `500ms`, `30s`, `2m`, `1h` (or a bare number of milliseconds).
 * `0` and `none` mean "no limit": A2A sets no time limit on a blocking send or a stream
 * (wire-reference §5.1), so unlimited must be expressible.
 */
const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const PATTERN = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h)$/;

/** Parses a duration; returns milliseconds, or an error message. */
export function parseDuration(value: unknown): number | string {
  if (typeof value === 'number')
    return Number.isFinite(value) && value >= 0 ? value : 'must be a non-negative number of milliseconds';
  if (typeof value !== 'string') return 'must be a duration like 500ms, 30s, 2m or 1h';
  const text = value.trim();
  if (text === 'none' || text === '0') return 0;
  const match = PATTERN.exec(text);
  if (!match) return `"${value}" is not a duration (use 500ms, 30s, 2m, 1h, or none)`;
  return Math.round(Number(match[1]) * (UNITS[match[2]!] ?? 1));
}
