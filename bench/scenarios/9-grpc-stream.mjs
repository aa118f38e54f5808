// Scenario 9: gRPC SendStreamingMessage (issue #16), gateway vs direct. The gRPC upstream
// answers each call with N StreamResponse messages (a Task, status and artifact updates of
// ~512 B in turn, a final COMPLETED status update) as fast as the stream takes them; the client
// keeps several streams in flight over a few HTTP/2 connections and counts events per second.
// Every stream is checked (grpc-status 0, exactly N messages). nginx and node: not applicable.
import { grpcStreamThroughput } from '../lib/grpc-client.mjs';
import { EVENT_BYTES } from '../lib/grpc-wire.mjs';
import { runRounds } from '../lib/rounds.mjs';
import { f, k, x, paragraph, table, measurement } from '../lib/markdown.mjs';
import { ratio } from '../lib/stats.mjs';
import { grpcPaths, grpcRows, errorsCell } from './grpc.mjs';

const KEY = 's9_stream';

const describe = (v) =>
  `${f(v.eventsPerSec, 0)} events/s (${f(v.mbps, 1)} MB/s), ${v.ok}/${v.streams} streams, ` +
  `stream p50 ${f(v.streamP50ms, 1)} ms, cpu/10k ${f(v.cpuPer10k, 3)} s, errors ${v.errors}` +
  `${v.firstError ? ` (${v.firstError})` : ''}`;

function render(results) {
  const m = measurement(results, KEY);
  if (!m.ran) return [];
  const G = results.settings.grpc.stream;
  const header = ['path', 'events/s (median)', 'rounds', 'vs direct', 'MB/s', 'streams done'];
  const more = ['stream p50 ms', 'stream p99 ms', 'proxy CPU s / 10k events', 'proxy RSS MB after', 'errors'];
  const rows = grpcRows(results, KEY, header.length + more.length, (p) => [
    p,
    k(m.med(p, 'eventsPerSec')),
    m.roundsText(p, 'eventsPerSec', k),
    x(ratio(m.med(p, 'eventsPerSec'), m.med('direct', 'eventsPerSec'))),
    f(m.med(p, 'mbps'), 1),
    f(m.med(p, 'ok'), 0),
    f(m.med(p, 'streamP50ms'), 1),
    f(m.med(p, 'streamP99ms'), 1),
    f(m.med(p, 'cpuPer10k'), 3),
    f(m.worst(p, 'rssMB')),
    errorsCell(m, results, KEY, p),
  ]);
  return [
    `## Scenario 9: gRPC streaming, SendStreamingMessage of ${G.events.toLocaleString('en')} messages`,
    '',
    paragraph(
      '`/lf.a2a.v1.A2AService/SendStreamingMessage` over h2c to the gRPC upstream, which answers each',
      `call with ${G.events.toLocaleString('en')} StreamResponse messages (a Task, then status and artifact updates`,
      `of ~${EVENT_BYTES} B in turn, then a final COMPLETED status update) as fast as the stream takes them`,
      `(honouring HTTP/2 flow control). ${G.concurrency} streams in flight over ${G.connections} connections,`,
      `closed loop, ${G.durationS} s per round, ${results.settings.rounds} round(s). A stream counts when it`,
      `ends with \`grpc-status: 0\` after exactly ${G.events.toLocaleString('en')} messages; events/s counts`,
      "the messages of those. Stream p50/p99: a whole stream's time, first byte of the request to the trailers.",
      'CPU per 10,000 events; RSS read after the round. nginx and the plain Node pass-through: not applicable.',
    ),
    '',
    table([...header, ...more], rows),
    '',
  ];
}

export default {
  id: 9,
  title: 'gRPC streaming SendStreamingMessage',
  grpc: true,
  async run(ctx) {
    const S = ctx.settings;
    const G = S.grpc.stream;
    ctx.log(
      `scenario 9: gRPC SendStreamingMessage, ${G.events} messages per stream, ` +
        `${G.concurrency} streams over ${G.connections} connections`,
    );
    const { paths, skipped } = await grpcPaths(ctx);
    const load = (p, durationS, measured) =>
      grpcStreamThroughput({
        address: p.grpcAddress(),
        connections: G.connections,
        concurrency: G.concurrency,
        events: G.events,
        durationS,
        ...(measured ? { pid: p.pid, upstreamPid: ctx.upstreamPids.grpc } : {}),
      });
    for (const p of paths) await load(p, S.warmupS, false);
    const measure = (p) => load(p, G.durationS, true);
    return {
      [KEY]: { byPath: {}, ...(await runRounds({ ...ctx, paths }, KEY, S.rounds, measure, describe)), skipped },
    };
  },
  /** The profile pass's load: streams for a few seconds, unmeasured. */
  async profile(ctx, p) {
    const G = ctx.settings.grpc.stream;
    const address = p.grpcAddress?.();
    if (!address) return;
    await grpcStreamThroughput({
      address,
      connections: G.connections,
      concurrency: G.concurrency,
      events: G.events,
      durationS: ctx.settings.profile.durationS,
    });
  },
  render,
};
