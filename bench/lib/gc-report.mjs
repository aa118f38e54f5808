// The "## GC pauses" section of RESULTS.md: for every measurement whose rounds carry `gc`
// (lib/gc-probe.mjs in the measured Node process, lib/rounds.mjs), what the collector cost each
// path: pauses by kind, their total and share of the wall time, and the pause percentiles.
import { median } from './stats.mjs';
import { f, paragraph, table } from './markdown.mjs';

/** One path's rounds of one measurement, summed (counts, totals) or summarised (percentiles). */
function gcRow(key, path, rounds) {
  const g = rounds.map((r) => r.gc);
  const sum = (field) => g.reduce((a, x) => a + (x[field] ?? 0), 0);
  const seconds = sum('seconds');
  const max = Math.max(...g.map((x) => x.maxMs ?? 0));
  const perReq = rounds.reduce((a, r) => a + (r.ok ?? r['2xx'] ?? r.samples ?? 0), 0);
  return [
    key,
    path,
    `${sum('count')} (${sum('scavenges')} / ${sum('markCompacts')} / ${sum('incremental')})`,
    f(sum('totalMs'), 1),
    f(seconds > 0 ? sum('totalMs') / (seconds * 10) : null, 2),
    perReq > 0 ? f((sum('totalMs') * 10000) / perReq / 1000, 3) : '—',
    f(median(g.map((x) => x.p50Ms)), 2),
    f(median(g.map((x) => x.p99Ms)), 2),
    f(max, 2),
    String(sum('over1ms')),
    overlapText(rounds),
  ];
}

/** Fixed-rate rounds (`gcTail`): the share of responses that overlapped a pause, per round. */
function overlapText(rounds) {
  const t = rounds.filter((r) => r.gcTail && r.samples > 0);
  if (!t.length) return '—';
  return t.map((r) => `${f((r.gcTail.samplesInGc * 100) / r.samples, 1)} %`).join(', ');
}

export function renderGc(results) {
  const rows = [];
  for (const [key, data] of Object.entries(results.scenarios)) {
    for (const [path, slot] of Object.entries(data?.byPath ?? {})) {
      const rounds = (slot.rounds ?? []).filter((r) => r?.gc);
      if (rounds.length) rows.push(gcRow(key, path, rounds));
    }
  }
  if (!rows.length) return [];
  return [
    '## GC pauses',
    '',
    paragraph(
      'Every garbage collection of the measured Node process (its cluster workers included),',
      'from perf_hooks GC entries (a preload, bench/lib/gc-probe.mjs, appends each to a file;',
      'the harness keeps those that started within the measurement).',
      'Pauses: all (scavenges / mark-compacts / incremental-marking and weak-callback steps), summed over rounds;',
      "% wall: pause time / the measurement's duration (per process: a cluster can exceed it);",
      's / 10k req: pause seconds per 10,000 responses where the measurement counts responses;',
      "p50 and p99: the median of the rounds' pause percentiles; max: the longest pause of any round;",
      'responses in GC (fixed-rate rounds, per round): the share of responses whose time in flight',
      'overlapped a pause (above 1 %, GC is in the p99).',
    ),
    '',
    table(
      [
        'measurement',
        'path',
        'pauses (scav / mc / inc)',
        'total ms',
        '% wall',
        'GC s / 10k req',
        'p50 ms',
        'p99 ms',
        'max ms',
        '> 1 ms',
        'responses in GC',
      ],
      rows,
    ),
    '',
  ];
}
