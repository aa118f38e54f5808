// Pieces the RESULTS.md sections are built from: number formats, tables, and a reader for one
// measurement's rounds in results.json.
import { ratio } from './stats.mjs';

const finite = (n) => typeof n === 'number' && Number.isFinite(n);

/** `n` with `d` decimals, '—' when not a number. */
export const f = (n, d = 1) => (finite(n) ? n.toFixed(d) : '—');
/** A ratio: `1.23×`. */
export const x = (n) => (finite(n) ? `${n.toFixed(2)}×` : '—');
/** A rate: whole numbers, thousands as `12.3k` from 10,000 on. */
export const k = (n) => {
  if (!finite(n)) return '—';
  return n >= 10000 ? `${(n / 1000).toFixed(1)}k` : n.toFixed(0);
};
/** A difference with its sign: `+0.123`. */
export const signed = (n, d = 3) => (finite(n) ? `${n >= 0 ? '+' : ''}${n.toFixed(d)}` : '—');

export function diff(a, b) {
  return typeof a === 'number' && typeof b === 'number' ? a - b : null;
}

/** Sentences or phrases of one paragraph, kept as short source lines, joined by spaces. */
export const paragraph = (...parts) => parts.join(' ');

/** A markdown table; the first column is left-aligned, the rest right unless `leftAll`. */
export function table(header, rows, leftAll = false) {
  const lines = [
    `| ${header.join(' | ')} |`,
    `| ${header.map((h, i) => (i === 0 || leftAll ? '---' : '---:')).join(' | ')} |`,
  ];
  for (const r of rows) lines.push(`| ${r.join(' | ')} |`);
  return lines.join('\n');
}

/** The paths that ran, by name, in the order they were started. */
export const availablePaths = (results) => results.paths.filter((p) => p.available).map((p) => p.name);

/**
 * Largest value of `field` over the rounds of one path, without the failed ones nor the
 * incomplete ones: a refused body's RSS is not the cost of carrying it (scenario 5), nor is a
 * fan-in's RSS that of N open streams when some failed (scenarios 4 and 10).
 */
function worstOf(rounds, field) {
  const v = rounds
    .filter((r) => r && !r.error && r.complete !== false && typeof r[field] === 'number')
    .map((r) => r[field]);
  return v.length ? Math.max(...v) : null;
}

/** The end of a fan-in round's progress line: failed streams, and a wait for the agent to settle. */
export function fanInRemarks(v) {
  const failed = v.failed ? `; ${v.failed} streams failed (${v.failedHow})` : '';
  const settled =
    v.upstreamSettleMs > 1000
      ? `; waited ${f(v.upstreamSettleMs / 1000, 1)} s for the agent's old connections to close`
      : '';
  return failed + settled;
}

/** What went wrong in one path's rounds: failed rounds, incomplete transfers, request errors. */
function errorsText(rounds) {
  const errs = rounds.filter((r) => r?.error && r.complete === undefined && r.rps === undefined);
  // Fan-in rounds say how their streams failed instead (below).
  const incomplete = rounds.filter((r) => r && r.complete === false && r.failed === undefined);
  const reqErrs = rounds.reduce((a, r) => a + (r?.errors ?? 0) + (r?.non2xx ?? 0), 0);
  const streamFailures = rounds.filter((r) => r?.failed > 0);
  const parts = [];
  if (errs.length) parts.push(`${errs.length} failed: ${errs[0].error}`);
  if (incomplete.length) parts.push(`${incomplete.length} incomplete`);
  if (reqErrs) parts.push(`${reqErrs} request errors`);
  // Fan-in rounds (scenarios 4 and 10): streams refused, cut or short of events.
  for (const r of streamFailures) parts.push(`${r.failed} streams failed${r.failedHow ? ` (${r.failedHow})` : ''}`);
  return parts.join('; ') || '0';
}

/**
 * A reader for one measurement (`results.scenarios[key]`): `med(path, field)` is the median of
 * rounds, `worst(path, field)` the largest round (what the RSS columns show), `vsReferences`
 * the median against direct, nginx and plain Node.
 */
export function measurement(results, key) {
  const slots = results.scenarios[key]?.byPath ?? {};
  const rounds = (path) => slots[path]?.rounds ?? [];
  const med = (path, field) => slots[path]?.median?.[field] ?? null;
  return {
    ran: Boolean(results.scenarios[key]),
    med,
    worst: (path, field) => worstOf(rounds(path), field),
    roundsText: (path, field, fm) =>
      rounds(path)
        .map((r) => (r && !r.error ? fm(r[field]) : 'err'))
        .join(', '),
    errors: (path) => errorsText(rounds(path)),
    vsReferences: (path, field) =>
      ['direct', 'nginx', 'node'].map((ref) => x(ratio(med(path, field), med(ref, field)))),
  };
}
