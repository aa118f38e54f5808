// Scenario 4: many concurrent open streams, an event now and then on each: the proxy's memory
// per open stream, and the delay events pick up while all are open.
import { sseFanIn } from '../lib/measure.mjs';
import { runRounds } from '../lib/rounds.mjs';
import { restartProxies } from '../lib/setup.mjs';
import { f, fanInRemarks, signed, diff, paragraph, table, measurement, availablePaths } from '../lib/markdown.mjs';

const describe = (v) =>
  `${v.opened}/${v.streams} open, ${v.events}/${v.expectedEvents} events, ` +
  `delay p50 ${f(v.delayP50ms, 2)} p99 ${f(v.delayP99ms, 2)} ms, ` +
  `RSS ${f(v.rssBaselineMB)} → ${f(v.rssPeakMB)} MB${fanInRemarks(v)}`;

function row(m, p) {
  const growth = m.worst(p, 'rssGrowthMB');
  const streams = m.med(p, 'streams');
  return [
    p,
    `${f(m.med(p, 'opened'), 0)}/${f(streams, 0)}`,
    `${f(m.med(p, 'events'), 0)}/${f(m.med(p, 'expectedEvents'), 0)}`,
    f(m.med(p, 'delayP50ms'), 2),
    f(m.med(p, 'delayP99ms'), 2),
    p === 'direct' ? '—' : signed(diff(m.med(p, 'delayP99ms'), m.med('direct', 'delayP99ms')), 2),
    f(m.med(p, 'rssBaselineMB')),
    f(m.worst(p, 'rssAllOpenMB')),
    f(m.worst(p, 'rssPeakMB')),
    growth !== null && streams ? f((growth * 1000) / streams, 1) : '—',
    m.errors(p),
  ];
}

function render(results) {
  const F = results.settings.fanin;
  const m = measurement(results, 's4_fanin');
  if (!m.ran) return [];
  const header = ['path', 'streams open', 'events received', 'delay p50 ms', 'p99 ms', 'added p99'];
  const rss = ['RSS before MB', 'RSS all open MB', 'RSS peak MB', 'growth per stream KB'];
  return [
    `## Scenario 4: SSE fan-in, ${F.streams.toLocaleString('en')} concurrent open streams`,
    '',
    paragraph(
      `Each stream gets an event every ${F.intervalMs} ms (random phase),`,
      `${F.eventsPerStream} events per stream, ${F.rounds} round(s).`,
      'RSS of the proxy process: before the streams open, once all are open, and the peak',
      '(VmHWM, reset before each round, and 100 ms samples). RSS columns show the worst round.',
    ),
    '',
    table(
      [...header, ...rss, 'errors'],
      availablePaths(results).map((p) => row(m, p)),
    ),
    '',
  ];
}

export default {
  id: 4,
  title: 'SSE fan-in, many open streams',
  async run(ctx) {
    const F = ctx.settings.fanin;
    await restartProxies(ctx, 'scenario 4');
    ctx.log(`scenario 4: SSE fan-in, ${F.streams} open streams, an event every ${F.intervalMs} ms`);
    const { streams, intervalMs, eventsPerStream, eventBytes } = F;
    const fanIn = (p) =>
      sseFanIn({
        url: `${p.agentUrl('sse')}/a2a/jsonrpc`,
        streams,
        intervalMs,
        eventsPerStream,
        eventBytes,
        pid: p.pid,
        upstreamPid: ctx.upstreamPids?.sse,
      });
    return { s4_fanin: await runRounds(ctx, 's4_fanin', F.rounds, fanIn, describe) };
  },
  render,
};
