// Scenario 8: unary gRPC SendMessage (issue #16), gateway vs direct. The gRPC upstream
// (servers/grpc-upstream.mjs) answers a fixed SendMessageResponse holding a direct agent
// Message; the client (lib/grpc-client.mjs) calls over node:http2, closed loop for throughput,
// then at a fixed rate for latency. Every answer is checked (grpc-status 0, one message, the
// upstream's bytes). nginx and node proxy HTTP/1.1 only: not applicable.
import { grpcUnaryThroughput, grpcUnaryLatency, UNARY_RESPONSE } from '../lib/grpc-client.mjs';
import { runRounds } from '../lib/rounds.mjs';
import { f, k, x, signed, diff, paragraph, table, measurement } from '../lib/markdown.mjs';
import { ratio } from '../lib/stats.mjs';
import { grpcPaths, grpcRows, errorsCell } from './grpc.mjs';

const TK = 's8_throughput';
const LK = 's8_latency';

const errs = (v) => `errors ${v.errors}${v.firstError ? ` (${v.firstError})` : ''}`;
const describeThroughput = (v) =>
  `${f(v.rps, 0)} calls/s, p50 ${f(v.p50ms, 2)} ms, p99 ${f(v.p99ms, 2)} ms, ` +
  `cpu/10k ${f(v.cpuPer10k, 2)} s, ${errs(v)}`;
const describeLatency = (v) =>
  `@${v.rate}/s: p50 ${f(v.p50ms, 3)} ms, p99 ${f(v.p99ms, 3)} ms (${v.samples} samples, ${errs(v)})`;

function throughputSection(results) {
  const U = results.settings.grpc.unary;
  const m = measurement(results, TK);
  const header = ['path', 'calls/s (median)', 'rounds', 'vs direct', 'p50 ms', 'p99 ms'];
  const more = ['proxy CPU s / 10k calls', 'proxy RSS MB after', 'errors'];
  const rows = grpcRows(results, TK, header.length + more.length, (p) => [
    p,
    k(m.med(p, 'rps')),
    m.roundsText(p, 'rps', k),
    x(ratio(m.med(p, 'rps'), m.med('direct', 'rps'))),
    f(m.med(p, 'p50ms'), 2),
    f(m.med(p, 'p99ms'), 2),
    f(m.med(p, 'cpuPer10k'), 2),
    f(m.worst(p, 'rssMB')),
    errorsCell(m, results, TK, p),
  ]);
  return [
    paragraph(
      `Throughput: ${U.concurrency} calls in flight over ${U.connections} HTTP/2 connections, closed loop,`,
      `${U.durationS} s per round, ${results.settings.rounds} round(s); p50/p99 of those calls (under load).`,
      'CPU = utime+stime of the proxy process over the run, per 10,000 answers; RSS read after the round.',
    ),
    '',
    table([...header, ...more], rows),
    '',
  ];
}

function latencySection(results) {
  const U = results.settings.grpc.unary;
  const m = measurement(results, LK);
  const added = (p, field) => (p === 'direct' ? '—' : signed(diff(m.med(p, field), m.med('direct', field))));
  const header = ['path', 'achieved calls/s', 'p50 ms', 'p90 ms', 'p99 ms', 'p50 added vs direct'];
  const more = ['p99 added vs direct', 'proxy CPU s / 10k calls', 'errors'];
  const rows = grpcRows(results, LK, header.length + more.length, (p) => {
    const achieved = m.med(p, 'achievedRps');
    const slow = (achieved ?? 0) < 0.95 * U.latencyRate ? ' (rate not sustained)' : '';
    return [
      p,
      `${k(achieved)}${slow}`,
      f(m.med(p, 'p50ms'), 3),
      f(m.med(p, 'p90ms'), 3),
      f(m.med(p, 'p99ms'), 3),
      added(p, 'p50ms'),
      added(p, 'p99ms'),
      f(m.med(p, 'cpuPer10k'), 2),
      errorsCell(m, results, LK, p),
    ];
  });
  return [
    paragraph(
      `Latency at a fixed rate of ${U.latencyRate} calls/s (open loop: calls start on schedule),`,
      `${U.latencyConnections} connections, ${U.latencyDurationS} s per round: per-call times in ms.`,
    ),
    '',
    table([...header, ...more], rows),
    '',
  ];
}

function render(results) {
  const ran = (key) => Boolean(results.scenarios[key]);
  if (!ran(TK) && !ran(LK)) return [];
  return [
    '## Scenario 8: gRPC unary SendMessage → direct Message',
    '',
    paragraph(
      '`/lf.a2a.v1.A2AService/SendMessage` over h2c (node:http2 client, no SDK) to the gRPC upstream',
      `(bench/servers/grpc-upstream.mjs: a fixed ${UNARY_RESPONSE.length} B SendMessageResponse),`,
      "through the gateway's per-agent gRPC port (`agents.grpc.grpc.listen`) or direct.",
      'Every answer is checked: HTTP 200, `grpc-status: 0` in the trailers, one message, byte-identical',
      "to the upstream's; anything else counts as an error. nginx and the plain Node pass-through",
      'proxy HTTP/1.1 only here: not applicable.',
    ),
    '',
    ...(ran(TK) ? throughputSection(results) : []),
    ...(ran(LK) ? latencySection(results) : []),
  ];
}

export default {
  id: 8,
  title: 'gRPC unary SendMessage → Message',
  grpc: true,
  async run(ctx) {
    const S = ctx.settings;
    const U = S.grpc.unary;
    ctx.log(`scenario 8: gRPC unary SendMessage (${U.concurrency} in flight over ${U.connections} connections)`);
    const { paths, skipped } = await grpcPaths(ctx);
    const sub = { ...ctx, paths };
    const upstreamPid = ctx.upstreamPids.grpc;
    for (const p of paths)
      await grpcUnaryThroughput({
        address: p.grpcAddress(),
        connections: U.connections,
        concurrency: 8,
        durationS: S.warmupS,
      });
    const throughput = (p) =>
      grpcUnaryThroughput({
        address: p.grpcAddress(),
        connections: U.connections,
        concurrency: U.concurrency,
        durationS: U.durationS,
        pid: p.pid,
        upstreamPid,
      });
    const latency = (p) =>
      grpcUnaryLatency({
        address: p.grpcAddress(),
        connections: U.latencyConnections,
        rate: U.latencyRate,
        durationS: U.latencyDurationS,
        pid: p.pid,
      });
    return {
      [TK]: { byPath: {}, ...(await runRounds(sub, TK, S.rounds, throughput, describeThroughput)), skipped },
      [LK]: { byPath: {}, ...(await runRounds(sub, LK, S.rounds, latency, describeLatency)), skipped },
    };
  },
  /** The profile pass's load: throughput only, unmeasured. */
  async profile(ctx, p) {
    const U = ctx.settings.grpc.unary;
    const address = p.grpcAddress?.();
    if (!address) return;
    await grpcUnaryThroughput({
      address,
      connections: U.connections,
      concurrency: U.concurrency,
      durationS: ctx.settings.profile.durationS,
    });
  },
  render,
};
