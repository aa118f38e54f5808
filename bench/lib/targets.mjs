// The targets, checked for every proxy path, and their section of RESULTS.md. Numbers
// are reported, never asserted: a missed target is written down plainly, it does not fail the run.
import { median, ratio } from './stats.mjs';
import { diff, f, x, signed, table, measurement } from './markdown.mjs';

const med = (results, key, path, field) => measurement(results, key).med(path, field);

/** value(results, path): the path's median of `field` against the reference path's. */
const againstPath = (key, field, reference) => (r, p) => ratio(med(r, key, p, field), med(r, key, reference, field));
/** value(results, path): the path's median of `field` minus direct's. */
const addedOverDirect = (key, field) => (r, p) => diff(med(r, key, p, field), med(r, key, 'direct', field));
/** value(results, path): the path's largest round of `field` (RSS: the worst round counts). */
const worstRound = (key, field) => (r, p) => measurement(r, key).worst(p, field);

/** Median over rounds of (1 − path/reference) × 100: throughput lost against the reference. */
function pairedCostPercent(results, key, path, reference, field) {
  const a = results.scenarios[key]?.byPath?.[path]?.rounds ?? [];
  const b = results.scenarios[key]?.byPath?.[reference]?.rounds ?? [];
  const costs = [];
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i]?.[field];
    const y = b[i]?.[field];
    if (!a[i]?.error && !b[i]?.error && typeof x === 'number' && typeof y === 'number' && y > 0)
      costs.push((1 - x / y) * 100);
  }
  return median(costs);
}

/**
 * What telemetry costs (issue 5): the gateway with metrics and tracing on against the same
 * gateway with both off. Side by side (scenario 7) when it ran: steadier than rounds taken one
 * after the other. Else scenario 1's rounds, paired (the paths alternate within a round, so the
 * machine's slow moments hit both) and the median taken.
 */
function telemetryCostPercent(r, p) {
  const sideBySide = r.scenarios.s7_side_by_side?.byPath?.[p]?.median?.rpsRatio;
  return typeof sideBySide === 'number'
    ? (1 - sideBySide) * 100
    : pairedCostPercent(r, 's1_throughput', p, 'gateway-no-metrics', 'rps');
}

const throughput = (n, what, threshold, reference) => ({
  id: `s${n}-vs-${reference}`,
  scenario: `s${n}_throughput`,
  field: 'rps',
  text: `unary throughput (${what}) ≥ ${threshold} × ${reference === 'node' ? 'plain Node' : reference}`,
  op: '>=',
  threshold,
  selfRef: reference,
  unit: '×',
  value: againstPath(`s${n}_throughput`, 'rps', reference),
});

const addedLatency = (n) => ({
  id: `s${n}-latency`,
  scenario: `s${n}_latency`,
  field: 'p50ms',
  text: `p50 latency added over direct ≤ 1 ms (scenario ${n}, fixed rate)`,
  op: '<=',
  threshold: 1,
  unit: ' ms',
  value: addedOverDirect(`s${n}_latency`, 'p50ms'),
});

/**
 * What inspection costs in CPU (issue #17): (gateway − gateway-no-inspection) / gateway, of the
 * proxy CPU seconds per 10,000 responses in the scenario's throughput rounds (medians).
 */
const inspectionCpu = (n, what) => ({
  id: `s${n}-inspection-cpu`,
  scenario: `s${n}_throughput`,
  field: 'cpuPer10k',
  text: `inspection ≤ 10 % of the CPU per request (${what}: gateway vs gateway-no-inspection, CPU s / 10k)`,
  op: '<=',
  threshold: 10,
  unit: ' %',
  only: 'gateway',
  needs: 'gateway-no-inspection',
  value: (r, p) => {
    const on = med(r, `s${n}_throughput`, p, 'cpuPer10k');
    const off = med(r, `s${n}_throughput`, 'gateway-no-inspection', 'cpuPer10k');
    return typeof on === 'number' && typeof off === 'number' && on > 0 ? ((on - off) / on) * 100 : null;
  },
});

/** value(results, path): the worst round's peak RSS growth per stream, in KB. */
/** RSS is read from the measured pid: for a cluster primary that is not where the streams are. */
const severalProcesses = (r, key, p) =>
  (r.scenarios?.[key]?.byPath?.[p]?.rounds ?? []).some((round) => (round?.gc?.processes ?? 1) > 1);

const rssPerStreamKB = (key) => (r, p) => {
  const m = measurement(r, key);
  if (severalProcesses(r, key, p)) return null;
  const growth = m.worst(p, 'rssGrowthMB');
  const streams = m.med(p, 'streams');
  return typeof growth === 'number' && streams ? (growth * 1000) / streams : null;
};

/** The key of a measurement in this run whose rounds held at least `n` streams open, or null. */
function scenarioWithStreams(results, n) {
  for (const [key, data] of Object.entries(results.scenarios ?? {})) {
    const slots = Object.values(data?.byPath ?? {});
    if (slots.some((s) => s.rounds?.some((r) => typeof r?.streams === 'number' && r.streams >= n))) return key;
  }
  return null;
}

const rss = (id, scenario, text, threshold, field) => ({
  id,
  scenario,
  field: 'rssPeakMB',
  text,
  op: '<=',
  threshold,
  unit: ' MB',
  value: worstRound(scenario, field),
});

/**
 * `value(results, path)` gives the measured value for a proxy path; `selfRef` names a path the
 * target compares against (n/a for that path itself); `only` limits a target to one path and
 * `needs` names the path it is measured against (not run: "<path> not run"); `scenario` may be
 * a function of the results (the key, or null when no measurement of the run fits).
 * RSS targets take the worst round, everything else the median of rounds.
 */
const TARGETS = [
  // Issue #17's bars (they replace the looser 1.2× plain Node and 0.2× nginx of issue #5).
  throughput(1, 'scenario 1', 1.7, 'node'),
  throughput(1, 'scenario 1', 0.35, 'nginx'),
  throughput(2, 'scenario 2, 10 KB Task', 1.7, 'node'),
  throughput(2, 'scenario 2, 10 KB Task', 0.35, 'nginx'),
  inspectionCpu(1, 'scenario 1'),
  inspectionCpu(2, 'scenario 2, 10 KB Task'),
  addedLatency(1),
  addedLatency(2),
  {
    id: 's2-latency-p99',
    scenario: 's2_latency',
    field: 'p99ms',
    text: 'p99 latency added over direct ≤ 1 ms (scenario 2, 500 req/s)',
    op: '<=',
    threshold: 1,
    unit: ' ms',
    value: addedOverDirect('s2_latency', 'p99ms'),
  },
  {
    id: 's3-rate',
    scenario: 's3_burst',
    field: 'eventsPerSec',
    text: 'SSE events per second ≥ 0.9 × direct (scenario 3)',
    op: '>=',
    threshold: 0.9,
    unit: '×',
    value: againstPath('s3_burst', 'eventsPerSec', 'direct'),
  },
  {
    id: 's3-inspection',
    scenario: 's3_burst',
    field: 'eventsPerSec',
    text: 'SSE events per second with inspection ≥ 0.85 × without (gateway vs gateway-no-inspection, scenario 3)',
    op: '>=',
    threshold: 0.85,
    unit: '×',
    only: 'gateway',
    needs: 'gateway-no-inspection',
    value: againstPath('s3_burst', 'eventsPerSec', 'gateway-no-inspection'),
  },
  {
    id: 's3-delay',
    scenario: 's3_paced',
    field: 'delayP99ms',
    text: 'SSE added per-event delay p99 ≤ 2 ms (scenario 3, paced)',
    op: '<=',
    threshold: 2,
    unit: ' ms',
    value: addedOverDirect('s3_paced', 'delayP99ms'),
  },
  {
    id: 's1-telemetry',
    scenario: 's1_throughput',
    field: 'rps',
    text:
      'metrics + tracing cost ≤ 10 % of unary throughput vs telemetry off ' +
      '(scenario 7 side by side; else scenario 1, paired rounds)',
    op: '<=',
    threshold: 10,
    unit: ' %',
    only: 'gateway+tracing',
    value: telemetryCostPercent,
  },
  rss('s5-unary-rss', 's5_unary', 'large unary body: peak RSS grows by ≤ 50 MB (scenario 5)', 50, 'rssGrowthMB'),
  rss('s5-sse-rss', 's5_sse', 'large SSE stream: peak RSS grows by ≤ 50 MB (scenario 5)', 50, 'rssGrowthMB'),
  rss('s4-rss', 's4_fanin', 'open streams: RSS ≤ 300 MB (scenario 4)', 300, 'rssPeakMB'),
  {
    id: 's4-rss-per-stream',
    scenario: 's4_fanin',
    field: 'rssGrowthMB',
    text: 'RSS per open stream ≤ 35 KB (scenario 4: peak growth / streams, worst round)',
    op: '<=',
    threshold: 35,
    unit: ' KB',
    value: rssPerStreamKB('s4_fanin'),
  },
  {
    // Whichever scenario of the run held 10,000 streams open (none: "scenario not run"). The
    // harness opens fewer when the hard open-files limit allows no more (two sockets per stream in
    // the proxy: 9,950 under a limit of 20,000); within 1 % of 10,000 counts, and the table says how many.
    id: 'streams-10k-rss',
    scenario: (r) => scenarioWithStreams(r, 9_900),
    field: 'rssPeakMB',
    text: '10,000 open streams: peak RSS ≤ 450 MB (scenario 10, worst round; ≥ 9,900 streams, as the open-files limit allows)',
    op: '<=',
    threshold: 450,
    unit: ' MB',
    value: (r, p) => {
      const key = scenarioWithStreams(r, 9_900);
      return key && !severalProcesses(r, key, p) ? measurement(r, key).worst(p, 'rssPeakMB') : null;
    },
  },
];

/** `1.23× (target ≥ 1.2×)`, `0.250 ms (target ≤ 1 ms)`. */
function valueText(t, v) {
  const value = t.unit === '×' ? x(v) : `${t.unit === ' ms' ? signed(v) : f(v, 1)}${t.unit}`;
  return `${value} (target ${t.op === '>=' ? '≥' : '≤'} ${t.threshold}${t.unit})`;
}

/** One target on one path: the row results.targets holds. */
function evaluate(results, t, p) {
  const scenario = typeof t.scenario === 'function' ? t.scenario(results) : t.scenario;
  const row = {
    id: t.id,
    text: t.text,
    scenario,
    field: t.field,
    path: p.name,
    primary: p.kind === 'gateway',
    threshold: t.threshold,
    op: t.op,
    value: null,
    met: null,
    valueText: '',
  };
  if (!p.available) row.valueText = p.reason ?? 'not available';
  else if (!scenario || !results.scenarios[scenario]) row.valueText = 'scenario not run';
  else if (t.selfRef === p.name) row.valueText = 'n/a (reference)';
  else if (t.needs && !results.paths.some((q) => q.name === t.needs && q.available))
    row.valueText = `${t.needs} not run`;
  else {
    row.value = t.value(results, p.name);
    if (row.value === null) row.valueText = 'no measurement';
    else {
      row.met = t.op === '>=' ? row.value >= t.threshold : row.value <= t.threshold;
      row.valueText = valueText(t, row.value);
    }
  }
  return row;
}

export function evaluateTargets(results) {
  const proxies = results.paths.filter((p) => p.kind !== 'direct');
  return TARGETS.flatMap((t) =>
    proxies.filter((p) => !t.only || p.name === t.only).map((p) => evaluate(results, t, p)),
  );
}

// ---- the Targets section of RESULTS.md ------------------------------------------------------

/** Largest max/min ratio of one metric across rounds, over every path measured: how noisy it was. */
function spread(results, key, field) {
  let worstRatio = null;
  for (const slot of Object.values(results.scenarios[key]?.byPath ?? {})) {
    const v = slot.rounds
      .filter((r) => r && !r.error && typeof r[field] === 'number' && r[field] > 0)
      .map((r) => r[field]);
    if (v.length < 2) continue;
    const r = Math.max(...v) / Math.min(...v);
    worstRatio = worstRatio === null ? r : Math.max(worstRatio, r);
  }
  return worstRatio;
}

/** The verdict on the gateway: not measured, everything met, or the list of misses. */
function verdict(results) {
  const gw = results.paths.filter((p) => p.kind === 'gateway');
  if (gw.length === 0 || gw.every((p) => !p.available)) {
    const why = gw.map((p) => `${p.name}: ${p.reason}`).join('; ') || 'no gateway path';
    return [
      `**The gateway was not measured in this run** (${why}), so no gateway target can be called met or missed. ` +
        'The same bars applied to the reference proxies are below.',
      '',
    ];
  }
  const missed = results.targets.filter((t) => t.primary && t.met === false);
  const met = results.targets.filter((t) => t.primary && t.met === true);
  if (missed.length === 0) return [`Every gateway target that was measured is met (${met.length} met).`, ''];
  const where = results.profiles.length
    ? 'The profile below shows where the time goes.'
    : 'Run with `--profile` to see where the time goes.';
  return [
    `**The gateway misses ${missed.length} target(s)** (${met.length} met). ${where}`,
    '',
    ...missed.map((t) => `- **missed** — ${t.path}: ${t.text}; measured ${t.valueText}`),
    '',
  ];
}

/** One cell of the targets table: one target on one path. */
function cell(results, t) {
  if (!t) return '—';
  if (!results.paths.find((p) => p.name === t.path)?.available) return 'not measured (see Paths)';
  if (t.met === true) return `met: ${t.valueText.replace(/ \(target.*\)$/, '')}`;
  if (t.met === false) return `**MISSED**: ${t.valueText.replace(/ \(target.*\)$/, '')}`;
  return t.valueText;
}

function targetsTable(results) {
  const cols = results.paths.filter((p) => p.kind !== 'direct');
  const header = [
    'target',
    ...cols.map((p) => (p.kind === 'gateway' ? `**${p.name}**` : `${p.name} (reference)`)),
    'noise: largest max/min across rounds',
  ];
  const rows = [...new Set(results.targets.map((t) => t.id))].map((id) => {
    const rows = results.targets.filter((t) => t.id === id);
    return [
      rows[0].text,
      ...cols.map((p) =>
        cell(
          results,
          rows.find((t) => t.path === p.name),
        ),
      ),
      x(spread(results, rows[0].scenario, rows[0].field)),
    ];
  });
  return table(header, rows, true);
}

export function renderTargets(results) {
  const S = results.settings;
  const lines = ['## Targets', '', ...verdict(results), targetsTable(results), ''];
  lines.push(
    'The last column is how far apart the rounds of that measurement were on the noisiest path ' +
      '(1.00× = identical rounds): where it is large, a met or missed near the bar says little; ' +
      'run again, ideally on a quiet machine.',
    '',
  );
  if (S.mode === 'quick')
    lines.push(
      `Quick mode: ${S.fanin.streams} streams instead of 1,000 and a ${f(S.large.bytes / 1e6, 0)} MB body ` +
        'instead of 100 MB, so the RSS targets are only indicative here.',
    );
  lines.push('');
  return lines;
}
