/**
 * Sizes in config are written as a number of bytes, or a number with exactly one of the units
 * docs/configuration.md names: `B`, `KiB`, `MiB`, `GiB` (`512B`, `64KiB`, `1.5MiB`, `1GiB`;
 * spelled as here). Nothing else is read as a unit: `1KB` meant 1024 bytes in earlier releases, which
 * surprised anyone who reads KB as 1000, and `kib` invites the question of what `kb` is. An
 * unknown unit is an error that names the spelling to use, never silently bytes.
 */
const UNITS: Readonly<Record<string, number>> = { B: 1, KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3 };
const PATTERN = /^(\d+(?:\.\d+)?)\s*([A-Za-z]+)?$/;
/** Spellings people write for the binary units, lower-cased, and the unit to write instead. */
const SUGGEST: Readonly<Record<string, string>> = {
  b: 'B',
  k: 'KiB',
  kb: 'KiB',
  kib: 'KiB',
  m: 'MiB',
  mb: 'MiB',
  mib: 'MiB',
  g: 'GiB',
  gb: 'GiB',
  gib: 'GiB',
};
const UNIT_NAMES = 'B, KiB, MiB, GiB';
const FORMS = `bytes, or ${UNIT_NAMES}: 512B, 64KiB, 32MiB, 1GiB`;

/** Parses a size; returns bytes, or an error message. */
export function parseSize(value: unknown): number | string {
  if (typeof value === 'number') {
    return Number.isSafeInteger(value) && value >= 0 ? value : 'must be a whole number of bytes';
  }
  const match = typeof value === 'string' ? PATTERN.exec(value.trim()) : null;
  if (!match) return `"${String(value)}" is not a size (use ${FORMS})`;
  const [, amount, unit = 'B'] = match;
  const factor = UNITS[unit];
  if (factor !== undefined) return Math.round(Number(amount) * factor);
  const instead = SUGGEST[unit.toLowerCase()];
  if (instead === undefined) return `"${String(value)}" is not a size (use ${FORMS})`;
  return `"${String(value)}" is not a size: write ${amount}${instead} (${instead} = ${UNITS[instead]} bytes; the units are ${UNIT_NAMES})`;
}
