// Scenarios 1, 2 and 11 have one shape: one unary JSON-RPC request against one upstream agent,
// closed-loop throughput and then latency at a fixed rate. Each is this factory with its agent,
// request and words.
import { A2A_HEADERS, sendMessageRequest } from '../lib/payloads.mjs';
import { unaryThroughput, unaryLatency, unaryWarmup } from '../lib/measure.mjs';
import { runRounds } from '../lib/rounds.mjs';
import { f, k, signed, diff, paragraph, table, measurement, availablePaths } from '../lib/markdown.mjs';

const SEND = sendMessageRequest();

const describeThroughput = (v) =>
  `${f(v.rps, 0)} req/s, p50 ${v.p50ms} ms, cpu/10k ${f(v.cpuPer10k, 2)} s, errors ${v.errors + v.non2xx}`;
const describeLatency = (v) =>
  `@${v.rate}/s: p50 ${f(v.p50ms, 3)} ms, p99 ${f(v.p99ms, 3)} ms ` +
  `(${v.samples} samples, errors ${v.errors + v.non2xx}` +
  (v.gcTail
    ? `; p99 tail in GC ${f(v.gcTail.tailInGcPercent, 0)} %, p99 without GC ${f(v.gcTail.p99WithoutGcMs, 3)} ms)`
    : ')');

function throughputSection(results, key) {
  const S = results.settings;
  const m = measurement(results, key);
  const rows = availablePaths(results).map((p) => [
    p,
    k(m.med(p, 'rps')),
    m.roundsText(p, 'rps', k),
    ...m.vsReferences(p, 'rps'),
    f(m.med(p, 'cpuPer10k'), 2),
    m.errors(p),
  ]);
  const header = ['path', 'req/s (median)', 'rounds', 'vs direct', 'vs nginx', 'vs plain Node'];
  return [
    paragraph(
      `Throughput: autocannon, ${S.unary.connections} connections, ${S.unary.durationS} s per round,`,
      `${S.rounds} round(s). CPU = utime+stime of the proxy process over the run, per 10,000 responses.`,
    ),
    '',
    table([...header, 'proxy CPU s / 10k req', 'errors'], rows),
    '',
  ];
}

function latencyRow(results, m, p) {
  const achieved = m.med(p, 'achievedRps');
  const slow = (achieved ?? 0) < 0.95 * results.settings.unary.latencyRate ? ' (rate not sustained)' : '';
  const added = (field) => (p === 'direct' ? '—' : signed(diff(m.med(p, field), m.med('direct', field))));
  return [
    p,
    `${k(achieved)}${slow}`,
    f(m.med(p, 'p50ms'), 3),
    f(m.med(p, 'p90ms'), 3),
    f(m.med(p, 'p99ms'), 3),
    added('p50ms'),
    added('p99ms'),
    f(m.med(p, 'cpuPer10k'), 2),
    m.errors(p),
  ];
}

function latencySection(results, key) {
  const U = results.settings.unary;
  const m = measurement(results, key);
  const header = ['path', 'achieved req/s', 'p50 ms', 'p90 ms', 'p99 ms', 'p50 added vs direct'];
  return [
    paragraph(
      `Latency at a fixed rate of ${U.latencyRate} req/s`,
      `(${U.latencyConnections} connections, ${U.latencyDurationS} s per round):`,
      'per-response times in ms, sub-millisecond.',
    ),
    '',
    table(
      [...header, 'p99 added vs direct', 'proxy CPU s / 10k req', 'errors'],
      availablePaths(results).map((p) => latencyRow(results, m, p)),
    ),
    '',
  ];
}

/**
 * A unary scenario: `id`, the upstream `agent` it asks, the `request` body (default SendMessage),
 * `title` (console) and `heading` (RESULTS.md); `prime` (optional) is one SendMessage sent
 * through each path before its warmup, so the task the load asks about is known (pinned) there.
 * Results: `s<id>_throughput` and `s<id>_latency`.
 */
export function unaryScenario({ id, agent, title, heading, request = SEND, prime = false, optIn = false }) {
  const REQUEST = request;
  const tk = `s${id}_throughput`;
  const lk = `s${id}_latency`;
  const url = (p) => `${p.agentUrl(agent)}/a2a/jsonrpc`;
  return {
    id,
    title,
    optIn,
    async run(ctx) {
      const S = ctx.settings;
      ctx.log(`scenario ${id}: ${title}`);
      for (const p of ctx.paths) {
        if (prime) await primeTask(url(p));
        await unaryWarmup({ url: url(p), body: REQUEST, durationS: S.warmupS * (p.warmupFactor ?? 1) });
      }
      const load = { body: REQUEST, connections: S.unary.connections, durationS: S.unary.durationS };
      const throughput = (p) =>
        unaryThroughput({ ...load, url: url(p), pid: p.pid, upstreamPid: ctx.upstreamPids.nginx });
      const rate = { rate: S.unary.latencyRate, connections: S.unary.latencyConnections };
      const latency = (p) =>
        unaryLatency({
          ...rate,
          url: url(p),
          body: REQUEST,
          durationS: S.unary.latencyDurationS,
          pid: p.pid,
          gcLog: p.gcLog,
        });
      return {
        [tk]: await runRounds(ctx, tk, S.rounds, throughput, describeThroughput),
        [lk]: await runRounds(ctx, lk, S.rounds, latency, describeLatency),
      };
    },
    /** The profile pass's load: throughput only, unmeasured. */
    async profile(ctx, p) {
      const { connections } = ctx.settings.unary;
      await unaryThroughput({ url: url(p), body: REQUEST, connections, durationS: ctx.settings.profile.durationS });
    },
    render(results) {
      const ran = (key) => Boolean(results.scenarios[key]);
      if (!ran(tk) && !ran(lk)) return [];
      return [
        `## Scenario ${id}: ${heading}`,
        '',
        ...(ran(tk) ? throughputSection(results, tk) : []),
        ...(ran(lk) ? latencySection(results, lk) : []),
      ];
    },
  };
}

/** One SendMessage whose Task answer the path's gateway pins (with affinity) before the load asks about it. */
async function primeTask(url) {
  const res = await fetch(url, { method: 'POST', headers: A2A_HEADERS, body: SEND });
  await res.arrayBuffer();
  if (!res.ok) throw new Error(`priming ${url}: HTTP ${res.status}`);
}
