/**
 * Sizes in config are written as a number of bytes or with a binary unit: `64KiB`, `32MiB`,
 * `1GiB` (also `kb`, `mb`, `gb`, meaning the same powers of 1024 as the config has always used).
 * An unknown unit is an error, never silently bytes.
 */
const UNITS: Record<string, number> = {
  b: 1,
  kib: 1024,
  kb: 1024,
  mib: 1024 ** 2,
  mb: 1024 ** 2,
  gib: 1024 ** 3,
  gb: 1024 ** 3,
};
const PATTERN = /^(\d+(?:\.\d+)?)\s*([a-z]+)?$/i;

/** Parses a size; returns bytes, or an error message. */
export function parseSize(value: unknown): number | string {
  if (typeof value === 'number') {
    return Number.isSafeInteger(value) && value >= 0 ? value : 'must be a whole number of bytes';
  }
  const match = typeof value === 'string' ? PATTERN.exec(value.trim()) : null;
  const unit = UNITS[(match?.[2] ?? 'b').toLowerCase()];
  if (!match || unit === undefined) return `"${String(value)}" is not a size (use bytes, or 64KiB, 32MiB, 1GiB)`;
  return Math.round(Number(match[1]) * unit);
}
