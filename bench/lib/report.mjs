// Targets and the RESULTS.md rendering. Numbers are reported, never asserted: a missed target
// is written down plainly, it does not fail the run.
import { median, ratio } from './stats.mjs';
import { formatSummary } from '../profile-summary.mjs';

const med = (results, key, path, field) => results.scenarios[key]?.byPath?.[path]?.median?.[field] ?? null;
const worst = (results, key, path, field) => {
  const rounds = results.scenarios[key]?.byPath?.[path]?.rounds ?? [];
  const v = rounds.filter((r) => r && !r.error && typeof r[field] === 'number').map((r) => r[field]);
  return v.length ? Math.max(...v) : null;
};

const f = (n, d = 1) => (typeof n === 'number' && Number.isFinite(n) ? n.toFixed(d) : '—');
const x = (n) => (typeof n === 'number' && Number.isFinite(n) ? `${n.toFixed(2)}×` : '—');
const k = (n) => {
  if (typeof n !== 'number' || !Number.isFinite(n)) return '—';
  return n >= 10000 ? `${(n / 1000).toFixed(1)}k` : n.toFixed(0);
};
const signed = (n, d = 3) =>
  typeof n === 'number' && Number.isFinite(n) ? `${n >= 0 ? '+' : ''}${n.toFixed(d)}` : '—';

/**
 * The issue's targets. `value(results, path)` gives the measured value for a proxy path;
 * `selfRef` names a path the target compares against (n/a for that path itself).
 * RSS targets take the worst round, everything else the median of rounds.
 */
const TARGETS = [
  {
    id: 's1-vs-node',
    scenario: 's1_throughput',
    field: 'rps',
    text: 'unary throughput (scenario 1) ≥ 1.2 × plain Node',
    op: '>=',
    threshold: 1.2,
    selfRef: 'node',
    unit: '×',
    value: (r, p) => ratio(med(r, 's1_throughput', p, 'rps'), med(r, 's1_throughput', 'node', 'rps')),
  },
  {
    id: 's1-vs-nginx',
    scenario: 's1_throughput',
    field: 'rps',
    text: 'unary throughput (scenario 1) ≥ 0.2 × nginx',
    op: '>=',
    threshold: 0.2,
    selfRef: 'nginx',
    unit: '×',
    value: (r, p) => ratio(med(r, 's1_throughput', p, 'rps'), med(r, 's1_throughput', 'nginx', 'rps')),
  },
  {
    id: 's2-vs-node',
    scenario: 's2_throughput',
    field: 'rps',
    text: 'unary throughput (scenario 2, 10 KB Task) ≥ 1.2 × plain Node',
    op: '>=',
    threshold: 1.2,
    selfRef: 'node',
    unit: '×',
    value: (r, p) => ratio(med(r, 's2_throughput', p, 'rps'), med(r, 's2_throughput', 'node', 'rps')),
  },
  {
    id: 's2-vs-nginx',
    scenario: 's2_throughput',
    field: 'rps',
    text: 'unary throughput (scenario 2, 10 KB Task) ≥ 0.2 × nginx',
    op: '>=',
    threshold: 0.2,
    selfRef: 'nginx',
    unit: '×',
    value: (r, p) => ratio(med(r, 's2_throughput', p, 'rps'), med(r, 's2_throughput', 'nginx', 'rps')),
  },
  {
    id: 's1-latency',
    scenario: 's1_latency',
    field: 'p50ms',
    text: 'p50 latency added over direct ≤ 1 ms (scenario 1, fixed rate)',
    op: '<=',
    threshold: 1,
    unit: ' ms',
    value: (r, p) => diff(med(r, 's1_latency', p, 'p50ms'), med(r, 's1_latency', 'direct', 'p50ms')),
  },
  {
    id: 's2-latency',
    scenario: 's2_latency',
    field: 'p50ms',
    text: 'p50 latency added over direct ≤ 1 ms (scenario 2, fixed rate)',
    op: '<=',
    threshold: 1,
    unit: ' ms',
    value: (r, p) => diff(med(r, 's2_latency', p, 'p50ms'), med(r, 's2_latency', 'direct', 'p50ms')),
  },
  {
    id: 's3-rate',
    scenario: 's3_burst',
    field: 'eventsPerSec',
    text: 'SSE events per second ≥ 0.8 × direct (scenario 3)',
    op: '>=',
    threshold: 0.8,
    unit: '×',
    value: (r, p) => ratio(med(r, 's3_burst', p, 'eventsPerSec'), med(r, 's3_burst', 'direct', 'eventsPerSec')),
  },
  {
    id: 's3-delay',
    scenario: 's3_paced',
    field: 'delayP99ms',
    text: 'SSE added per-event delay p99 ≤ 2 ms (scenario 3, paced)',
    op: '<=',
    threshold: 2,
    unit: ' ms',
    value: (r, p) => diff(med(r, 's3_paced', p, 'delayP99ms'), med(r, 's3_paced', 'direct', 'delayP99ms')),
  },
  // What telemetry costs (issue 5): the gateway with metrics and tracing on against the same
  // gateway with both off, paired round by round (the paths alternate within a round, so the
  // machine's slow moments hit both) and the median taken.
  // Side by side (scenario 7) when it ran: steadier than rounds taken one after the other.
  {
    id: 's1-telemetry',
    scenario: 's1_throughput',
    field: 'rps',
    text: 'metrics + tracing cost ≤ 10 % of unary throughput vs telemetry off (scenario 7 side by side; else scenario 1, paired rounds)',
    op: '<=',
    threshold: 10,
    unit: ' %',
    only: 'gateway+tracing',
    value: (r, p) => {
      const sideBySide = r.scenarios.s7_side_by_side?.byPath?.[p]?.median?.rpsRatio;
      return typeof sideBySide === 'number'
        ? (1 - sideBySide) * 100
        : pairedCostPercent(r, 's1_throughput', p, 'gateway-no-metrics', 'rps');
    },
  },
  {
    id: 's5-unary-rss',
    scenario: 's5_unary',
    field: 'rssPeakMB',
    text: 'large unary body: peak RSS grows by ≤ 50 MB (scenario 5)',
    op: '<=',
    threshold: 50,
    unit: ' MB',
    value: (r, p) => worst(r, 's5_unary', p, 'rssGrowthMB'),
  },
  {
    id: 's5-sse-rss',
    scenario: 's5_sse',
    field: 'rssPeakMB',
    text: 'large SSE stream: peak RSS grows by ≤ 50 MB (scenario 5)',
    op: '<=',
    threshold: 50,
    unit: ' MB',
    value: (r, p) => worst(r, 's5_sse', p, 'rssGrowthMB'),
  },
  {
    id: 's4-rss',
    scenario: 's4_fanin',
    field: 'rssPeakMB',
    text: 'open streams: RSS ≤ 300 MB (scenario 4)',
    op: '<=',
    threshold: 300,
    unit: ' MB',
    value: (r, p) => worst(r, 's4_fanin', p, 'rssPeakMB'),
  },
];

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

function diff(a, b) {
  return typeof a === 'number' && typeof b === 'number' ? a - b : null;
}

export function evaluateTargets(results) {
  const out = [];
  const proxies = results.paths.filter((p) => p.kind !== 'direct');
  for (const t of TARGETS) {
    for (const p of proxies) {
      if (t.only && p.name !== t.only) continue;
      const row = {
        id: t.id,
        text: t.text,
        scenario: t.scenario,
        field: t.field,
        path: p.name,
        primary: p.kind === 'gateway',
        threshold: t.threshold,
        op: t.op,
        value: null,
        met: null,
        valueText: '',
      };
      if (!p.available) {
        row.valueText = p.reason ?? 'not available';
      } else if (!results.scenarios[t.scenario]) {
        row.valueText = 'scenario not run';
      } else if (t.selfRef === p.name) {
        row.valueText = 'n/a (reference)';
      } else {
        const v = t.value(results, p.name);
        row.value = v;
        if (v === null) {
          row.valueText = 'no measurement';
        } else {
          row.met = t.op === '>=' ? v >= t.threshold : v <= t.threshold;
          row.valueText = `${t.unit === '×' ? x(v) : `${f(v, t.unit === ' ms' ? 3 : 1)}${t.unit}`} (target ${t.op === '>=' ? '≥' : '≤'} ${t.threshold}${t.unit === '×' ? '×' : t.unit})`;
        }
      }
      out.push(row);
    }
  }
  return out;
}

// ---- markdown -----------------------------------------------------------------------------

/** A markdown table; the first column is left-aligned, the rest right unless `leftAll`. */
function table(header, rows, leftAll = false) {
  const lines = [
    `| ${header.join(' | ')} |`,
    `| ${header.map((h, i) => (i === 0 || leftAll ? '---' : '---:')).join(' | ')} |`,
  ];
  for (const r of rows) lines.push(`| ${r.join(' | ')} |`);
  return lines.join('\n');
}

function roundsText(results, key, path, field, fm) {
  const rounds = results.scenarios[key]?.byPath?.[path]?.rounds ?? [];
  return rounds.map((r) => (r && !r.error ? fm(r[field]) : 'err')).join(', ');
}

function errorsOf(results, key, path) {
  const rounds = results.scenarios[key]?.byPath?.[path]?.rounds ?? [];
  const errs = rounds.filter((r) => r?.error && r.complete === undefined && r.rps === undefined);
  const incompl = rounds.filter((r) => r && r.complete === false);
  const reqErrs = rounds.reduce((a, r) => a + (r?.errors ?? 0) + (r?.non2xx ?? 0), 0);
  const parts = [];
  if (errs.length) parts.push(`${errs.length} failed: ${errs[0].error}`);
  if (incompl.length) parts.push(`${incompl.length} incomplete`);
  if (reqErrs) parts.push(`${reqErrs} request errors`);
  return parts.join('; ') || '0';
}

export function renderMarkdown(results) {
  const m = results.meta;
  const S = results.settings;
  const avail = results.paths.filter((p) => p.available).map((p) => p.name);
  const has = (key) => Boolean(results.scenarios[key]);
  const L = [];
  L.push('# Benchmark results');
  L.push('');
  L.push(
    `Generated by \`${m.mode === 'quick' ? 'npm run bench -- --quick' : 'npm run bench'}\` (bench/run.mjs); raw numbers in \`results.json\`. How to run and what each scenario measures: [README.md](README.md).`,
  );
  L.push('');
  L.push(`- Date: ${m.date} (run took ${m.wallSeconds} s, mode: ${m.mode})`);
  L.push(
    `- Machine: ${m.cpuModel}, ${m.cores} cores, ${m.memGB} GB RAM, Linux ${m.kernel}; load average at start ${m.loadAvgAtStart.join(' ')}`,
  );
  L.push(
    `- Software: Node ${m.node}, ${m.nginx}, autocannon ${m.autocannon}, http-proxy-middleware ${m.httpProxyMiddleware}`,
  );
  L.push(`- Gateway measured: ${m.gatewayBuild} (\`${m.gatewayCli}\`); harness at commit ${m.commit ?? 'unknown'}`);
  L.push(
    '- Everything (load generator, upstreams, proxy) shares this machine; other work running on it shows up as noise. Numbers are medians of rounds; paths alternate within each round (ABCD, BCDA, …).',
  );
  L.push('');
  L.push('## Paths');
  L.push('');
  L.push(
    table(
      ['path', 'what', 'process measured (RSS, CPU)', 'status'],
      results.paths.map((p) => [
        p.name,
        p.label,
        p.kind === 'direct' ? '— (no proxy)' : p.kind === 'nginx' ? 'nginx worker' : 'the Node process',
        p.available ? (p.problems?.length ? `ran; warning: ${p.problems.join('; ')}` : 'ran') : `**${p.reason}**`,
      ]),
      true,
    ),
  );
  L.push('');
  if (m.otlpSink)
    L.push(
      `The loopback OTLP sink (stand-in for a collector) received ${m.otlpSink.requests} trace export request(s), ${f(m.otlpSink.bytes / 1e6, 1)} MB in all${m.otlpSink.spans !== undefined ? `, ${m.otlpSink.spans} spans (two per proxied request: server and client)` : ''}.`,
      '',
    );
  L.push(
    'Upstreams: nginx (`return 200` with a fixed A2A body, one worker) for scenarios 1 and 2, the same nginx serving a static file for the large unary body, and a small Node SSE server (bench/servers/sse-upstream.mjs) for the streams.',
  );
  L.push('');

  const ratios = (key, field, p) => {
    const v = med(results, key, p, field);
    return [
      x(ratio(v, med(results, key, 'direct', field))),
      x(ratio(v, med(results, key, 'nginx', field))),
      x(ratio(v, med(results, key, 'node', field))),
    ];
  };

  for (const n of [1, 2]) {
    const tk = `s${n}_throughput`;
    const lk = `s${n}_latency`;
    if (!has(tk) && !has(lk)) continue;
    L.push(
      n === 1
        ? '## Scenario 1: unary SendMessage → direct Message (small body)'
        : '## Scenario 2: unary SendMessage → Task with artifacts (~10 KB body)',
    );
    L.push('');
    if (has(tk)) {
      L.push(
        `Throughput: autocannon, ${S.unary.connections} connections, ${S.unary.durationS} s per round, ${S.rounds} round(s). CPU = utime+stime of the proxy process over the run, per 10,000 responses.`,
      );
      L.push('');
      L.push(
        table(
          [
            'path',
            'req/s (median)',
            'rounds',
            'vs direct',
            'vs nginx',
            'vs plain Node',
            'proxy CPU s / 10k req',
            'errors',
          ],
          avail.map((p) => [
            p,
            k(med(results, tk, p, 'rps')),
            roundsText(results, tk, p, 'rps', k),
            ...ratios(tk, 'rps', p),
            f(med(results, tk, p, 'cpuPer10k'), 2),
            errorsOf(results, tk, p),
          ]),
        ),
      );
      L.push('');
    }
    if (has(lk)) {
      L.push(
        `Latency at a fixed rate of ${S.unary.latencyRate} req/s (${S.unary.latencyConnections} connections, ${S.unary.latencyDurationS} s per round): per-response times in ms, sub-millisecond.`,
      );
      L.push('');
      const d50 = med(results, lk, 'direct', 'p50ms');
      const d99 = med(results, lk, 'direct', 'p99ms');
      L.push(
        table(
          [
            'path',
            'achieved req/s',
            'p50 ms',
            'p90 ms',
            'p99 ms',
            'p50 added vs direct',
            'p99 added vs direct',
            'proxy CPU s / 10k req',
            'errors',
          ],
          avail.map((p) => [
            p,
            `${k(med(results, lk, p, 'achievedRps'))}${(med(results, lk, p, 'achievedRps') ?? 0) < 0.95 * S.unary.latencyRate ? ' (rate not sustained)' : ''}`,
            f(med(results, lk, p, 'p50ms'), 3),
            f(med(results, lk, p, 'p90ms'), 3),
            f(med(results, lk, p, 'p99ms'), 3),
            p === 'direct' ? '—' : signed(diff(med(results, lk, p, 'p50ms'), d50)),
            p === 'direct' ? '—' : signed(diff(med(results, lk, p, 'p99ms'), d99)),
            f(med(results, lk, p, 'cpuPer10k'), 2),
            errorsOf(results, lk, p),
          ]),
        ),
      );
      L.push('');
    }
  }

  if (has('s3_burst') || has('s3_paced')) {
    L.push(`## Scenario 3: SSE, one stream of ${S.sse.burstEvents.toLocaleString('en')} events`);
    L.push('');
    L.push(
      `Events of ~${S.sse.eventBytes} B (statusUpdate). Throughput: the upstream writes as fast as the path takes them (honouring backpressure), ${S.sse.rounds} round(s). Delay: a second stream of ${S.sse.pacedEvents.toLocaleString('en')} events paced at ${S.sse.pacedRate}/s, delay = receive time − the send time the upstream put in the event (both CLOCK_MONOTONIC), ${S.rounds} round(s). "Added" = this path's percentile − direct's.`,
    );
    L.push('');
    const d50 = med(results, 's3_paced', 'direct', 'delayP50ms');
    const d99 = med(results, 's3_paced', 'direct', 'delayP99ms');
    L.push(
      table(
        [
          'path',
          'events/s (median)',
          'rounds',
          'vs direct',
          'vs nginx',
          'vs plain Node',
          'paced delay p50 ms',
          'p99 ms',
          'added p50',
          'added p99',
          'errors',
        ],
        avail.map((p) => [
          p,
          k(med(results, 's3_burst', p, 'eventsPerSec')),
          roundsText(results, 's3_burst', p, 'eventsPerSec', k),
          ...ratios('s3_burst', 'eventsPerSec', p),
          f(med(results, 's3_paced', p, 'delayP50ms'), 3),
          f(med(results, 's3_paced', p, 'delayP99ms'), 3),
          p === 'direct' ? '—' : signed(diff(med(results, 's3_paced', p, 'delayP50ms'), d50)),
          p === 'direct' ? '—' : signed(diff(med(results, 's3_paced', p, 'delayP99ms'), d99)),
          `${errorsOf(results, 's3_burst', p)} / ${errorsOf(results, 's3_paced', p)}`,
        ]),
      ),
    );
    L.push('');
  }

  if (has('s4_fanin')) {
    L.push(`## Scenario 4: SSE fan-in, ${S.fanin.streams.toLocaleString('en')} concurrent open streams`);
    L.push('');
    L.push(
      `Each stream gets an event every ${S.fanin.intervalMs} ms (random phase), ${S.fanin.eventsPerStream} events per stream, ${S.fanin.rounds} round(s). RSS of the proxy process: before the streams open, once all are open, and the peak (VmHWM, reset before each round, and 100 ms samples). RSS columns show the worst round.`,
    );
    L.push('');
    const d99 = med(results, 's4_fanin', 'direct', 'delayP99ms');
    L.push(
      table(
        [
          'path',
          'streams open',
          'events received',
          'delay p50 ms',
          'p99 ms',
          'added p99',
          'RSS before MB',
          'RSS all open MB',
          'RSS peak MB',
          'growth per stream KB',
          'errors',
        ],
        avail.map((p) => {
          const peak = worst(results, 's4_fanin', p, 'rssPeakMB');
          const growth = worst(results, 's4_fanin', p, 'rssGrowthMB');
          const streams = med(results, 's4_fanin', p, 'streams');
          return [
            p,
            `${f(med(results, 's4_fanin', p, 'opened'), 0)}/${f(streams, 0)}`,
            `${f(med(results, 's4_fanin', p, 'events'), 0)}/${f(med(results, 's4_fanin', p, 'expectedEvents'), 0)}`,
            f(med(results, 's4_fanin', p, 'delayP50ms'), 2),
            f(med(results, 's4_fanin', p, 'delayP99ms'), 2),
            p === 'direct' ? '—' : signed(diff(med(results, 's4_fanin', p, 'delayP99ms'), d99), 2),
            f(med(results, 's4_fanin', p, 'rssBaselineMB')),
            f(worst(results, 's4_fanin', p, 'rssAllOpenMB')),
            f(peak),
            growth !== null && streams ? f((growth * 1000) / streams, 1) : '—',
            errorsOf(results, 's4_fanin', p),
          ];
        }),
      ),
    );
    L.push('');
  }

  if (has('s5_unary') || has('s5_sse')) {
    L.push(`## Scenario 5: large bodies (${f(S.large.bytes / 1e6, 0)} MB)`);
    L.push('');
    L.push(
      `Unary: SendMessage answered by a Task whose one artifact holds one ${f(S.large.bytes / 1e6, 0)} MB text part. SSE: a stream of ~${f(S.large.sseEventBytes / 1e6, 1)} MB artifactUpdate events adding up to the same size. ${S.large.rounds} round(s); throughput median, RSS growth = peak − RSS before, worst round.`,
    );
    L.push('');
    L.push(
      table(
        [
          'path',
          'unary MB/s',
          'vs direct',
          'unary RSS before → peak MB',
          'unary growth MB',
          'SSE MB/s',
          'vs direct',
          'SSE RSS before → peak MB',
          'SSE growth MB',
          'errors',
        ],
        avail.map((p) => [
          p,
          f(med(results, 's5_unary', p, 'mbps'), 0),
          x(ratio(med(results, 's5_unary', p, 'mbps'), med(results, 's5_unary', 'direct', 'mbps'))),
          p === 'direct'
            ? '—'
            : `${f(med(results, 's5_unary', p, 'rssBaselineMB'))} → ${f(worst(results, 's5_unary', p, 'rssPeakMB'))}`,
          f(worst(results, 's5_unary', p, 'rssGrowthMB')),
          f(med(results, 's5_sse', p, 'mbps'), 0),
          x(ratio(med(results, 's5_sse', p, 'mbps'), med(results, 's5_sse', 'direct', 'mbps'))),
          p === 'direct'
            ? '—'
            : `${f(med(results, 's5_sse', p, 'rssBaselineMB'))} → ${f(worst(results, 's5_sse', p, 'rssPeakMB'))}`,
          f(worst(results, 's5_sse', p, 'rssGrowthMB')),
          `${errorsOf(results, 's5_unary', p)} / ${errorsOf(results, 's5_sse', p)}`,
        ]),
      ),
    );
    L.push('');
  }

  const s6 = results.scenarios.s6;
  if (s6) {
    L.push('## Scenario 6: timeout rescue, task settled → client answered');
    L.push('');
    if (s6.error) {
      L.push(`Not measured: ${s6.error}`);
    } else {
      L.push(
        `A real SDK agent (the demo fleet's test-runner: every message is a task that completes after ${s6.taskMs} ms) behind a gateway whose agents use the timeout rescue with each strategy (poll: first interval ${s6.pollInitialMs} ms, growing to ${s6.pollMaxMs} ms). ${s6.sends} blocking SendMessage calls per strategy; the numbers come from the gateway's access log (\`upgrade.settleToAnswerMs\`, \`upgrade.polls\`), timed with performance.now inside the gateway. "Gateway saw it → answered" is the gateway's own latency once it learns the task settled; "agent settled → client answered" adds the time until it learns it (the agent's COMPLETED timestamp to the client holding the answer; one host clock, millisecond resolution) — for polling that includes up to one poll interval by construction. Targets (on the latter): ≤ 50 ms with subscribe or stream, ≤ one poll interval with polling.`,
      );
      L.push('');
      L.push(
        table(
          [
            'strategy',
            'answered',
            'outcomes',
            'gateway saw it → answered p50 / max ms',
            'agent settled → client answered p50 / max ms',
            'GetTask polls per task (mean / max)',
            'target',
          ],
          Object.entries(s6.strategies).map(([name, v]) => {
            const bound = name === 'poll' ? s6.pollMaxMs : 50;
            const max = v.agentSettleToClientMs?.max;
            const verdict =
              max === undefined || max === null
                ? 'not measured'
                : max <= bound
                  ? `met (max ≤ ${bound} ms)`
                  : `**MISSED** (max > ${bound} ms)`;
            return [
              name,
              String(v.answered),
              Object.entries(v.outcomes)
                .map(([k, n]) => `${k} ${n}`)
                .join(', '),
              `${f(v.settleToAnswerMs?.p50, 2)} / ${f(v.settleToAnswerMs?.max, 2)}`,
              `${f(v.agentSettleToClientMs?.p50, 0)} / ${f(max, 0)}`,
              v.pollsPerTask ? `${f(v.pollsPerTask.mean, 1)} / ${v.pollsPerTask.max}` : '—',
              verdict,
            ];
          }),
        ),
      );
    }
    L.push('');
  }

  const s7 = results.scenarios.s7_side_by_side;
  if (s7) {
    L.push('## Scenario 7: what telemetry costs, side by side');
    L.push('');
    L.push(
      `Each telemetry variant and \`${s7.reference}\` (metrics and tracing off) take scenario 1's load at the same time, ${s7.connections} connections each for ${s7.durationS} s after an unmeasured warm-up of the same load, so both see the same moments of the machine; ${S.telemetry?.rounds ?? S.rounds} round(s), medians of the per-round ratios. CPU = utime+stime of each gateway process per request. Cost = 1 − throughput ratio.`,
    );
    L.push('');
    L.push(
      table(
        [
          'path',
          'throughput vs reference (rounds)',
          'CPU per request vs reference (rounds)',
          'cost (median)',
          'errors',
        ],
        Object.entries(s7.byPath).map(([name, slot]) => {
          const ok = slot.rounds.filter((r) => r && !r.error);
          const errors = ok.reduce((n, r) => n + (r.errors ?? 0), 0) + (slot.rounds.length - ok.length);
          return [
            name,
            `${x(slot.median?.rpsRatio)} (${ok.map((r) => x(r.rpsRatio)).join(', ')})`,
            `${x(slot.median?.cpuRatio)} (${ok.map((r) => x(r.cpuRatio)).join(', ')})`,
            slot.median?.rpsRatio ? `${f((1 - slot.median.rpsRatio) * 100, 1)} %` : '—',
            String(errors),
          ];
        }),
      ),
    );
    L.push('');
    if (s7.byPath['gateway-no-metrics-control']) {
      L.push(
        `\`gateway-no-metrics-control\` is a second copy of \`${s7.reference}\` measured the same way: its row is what the method shows when there is nothing to measure (its bias and spread), not a cost.`,
      );
      L.push('');
    }
  }

  // ---- targets ----------------------------------------------------------------------------
  L.push('## Targets');
  L.push('');
  const gw = results.paths.filter((p) => p.kind === 'gateway');
  if (gw.length === 0 || gw.every((p) => !p.available)) {
    L.push(
      `**The gateway was not measured in this run** (${gw.map((p) => `${p.name}: ${p.reason}`).join('; ') || 'no gateway path'}), so no gateway target can be called met or missed. The same bars applied to the reference proxies are below.`,
    );
    L.push('');
  } else {
    const missed = results.targets.filter((t) => t.primary && t.met === false);
    const met = results.targets.filter((t) => t.primary && t.met === true);
    if (missed.length === 0) {
      L.push(`Every gateway target that was measured is met (${met.length} met).`);
    } else {
      L.push(
        `**The gateway misses ${missed.length} target(s)** (${met.length} met). ${results.profiles.length ? 'The profile below shows where the time goes.' : 'Run with `--profile` to see where the time goes.'}`,
      );
      L.push('');
      for (const t of missed) L.push(`- **missed** — ${t.path}: ${t.text}; measured ${t.valueText}`);
    }
    L.push('');
  }
  const cols = results.paths.filter((p) => p.kind !== 'direct');
  const ids = [...new Set(results.targets.map((t) => t.id))];
  const cell = (t) => {
    if (!t) return '—';
    if (!results.paths.find((p) => p.name === t.path)?.available) return 'not measured (see Paths)';
    if (t.met === true) return `met: ${t.valueText.replace(/ \(target.*\)$/, '')}`;
    if (t.met === false) return `**MISSED**: ${t.valueText.replace(/ \(target.*\)$/, '')}`;
    return t.valueText;
  };
  L.push(
    table(
      [
        'target',
        ...cols.map((p) => (p.kind === 'gateway' ? `**${p.name}**` : `${p.name} (reference)`)),
        'noise: largest max/min across rounds',
      ],
      ids.map((id) => {
        const rows = results.targets.filter((t) => t.id === id);
        return [
          rows[0].text,
          ...cols.map((p) => cell(rows.find((t) => t.path === p.name))),
          x(spread(results, rows[0].scenario, rows[0].field)),
        ];
      }),
      true,
    ),
  );
  L.push('');
  L.push(
    'The last column is how far apart the rounds of that measurement were on the noisiest path (1.00× = identical rounds): where it is large, a met or missed near the bar says little; run again, ideally on a quiet machine.',
  );
  L.push('');
  if (S.mode === 'quick')
    L.push(
      `Quick mode: ${S.fanin.streams} streams instead of 1,000 and a ${f(S.large.bytes / 1e6, 0)} MB body instead of 100 MB, so the RSS targets are only indicative here.`,
    );
  L.push('');

  if (results.profiles.length) {
    L.push('## Profiles');
    L.push('');
    L.push(
      'Each gateway variant again, separately from the measured runs, under `node --cpu-prof` with the unary and SSE throughput loads; top functions by self time. Native functions (no location) include the system call they make: `writev` is the time spent writing to sockets, kernel included. The `.cpuprofile` itself stays under bench/out/profiles (not committed); `node bench/profile-summary.mjs FILE` summarises it again.',
    );
    L.push('');
    for (const p of results.profiles) {
      L.push(`### ${p.path}`);
      L.push('');
      L.push(`\`${p.file}\``);
      L.push('');
      L.push(formatSummary(p.summary));
      L.push('');
    }
  }
  if (results.notes.length) {
    L.push('## Notes');
    L.push('');
    for (const n of results.notes) L.push(`- ${n}`);
    L.push('');
  }
  return `${L.join('\n')}\n`;
}
