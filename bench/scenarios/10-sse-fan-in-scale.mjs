// Scenario 10: the fan-in at scale (issue #17, "light streams"): 10,000 open streams (or
// `--streams N`), each quiet most of the time, through each path at once. The proxy's RSS before,
// once all are open, and its peak, per open stream. Opt-in: only with `--scenarios 10` (a full
// run does not open 10,000 streams unless asked).
import { sseFanIn } from '../lib/measure.mjs';
import { runRounds } from '../lib/rounds.mjs';
import { restartProxies } from '../lib/setup.mjs';
import { f, fanInRemarks, paragraph, table, measurement, availablePaths } from '../lib/markdown.mjs';

const describe = (v) =>
  `${v.opened}/${v.streams} open in ${f(v.openMs / 1000, 1)} s, ${v.events}/${v.expectedEvents} events, ` +
  `RSS ${f(v.rssBaselineMB)} → ${f(v.rssAllOpenMB)} (peak ${f(v.rssPeakMB)}) MB${fanInRemarks(v)}`;

const perStream = (mb, base, n) => (mb != null && base != null && n ? f(((mb - base) * 1000) / n, 1) : '—');

function row(m, p) {
  const opened = m.med(p, 'opened');
  const base = m.med(p, 'rssBaselineMB');
  const allOpen = m.worst(p, 'rssAllOpenMB');
  const peak = m.worst(p, 'rssPeakMB');
  return [
    p,
    `${f(opened, 0)}/${f(m.med(p, 'streams'), 0)}`,
    f(m.med(p, 'openMs') / 1000, 1),
    `${f(m.med(p, 'events'), 0)}/${f(m.med(p, 'expectedEvents'), 0)}`,
    f(m.med(p, 'delayP99ms'), 1),
    f(base),
    f(allOpen),
    f(peak),
    p === 'direct' ? '—' : perStream(allOpen, base, opened),
    p === 'direct' ? '—' : perStream(peak, base, opened),
    m.errors(p),
  ];
}

function render(results) {
  const F = results.settings.faninScale;
  const m = measurement(results, 's10_fanin_scale');
  if (!m.ran || !F) return [];
  return [
    `## Scenario 10: SSE fan-in at scale, ${F.streams.toLocaleString('en')} open streams`,
    '',
    paragraph(
      `${F.streams.toLocaleString('en')} streams opened in batches of 100, each batch once the one before is open`,
      '(opened all at once, the gateway accepts slower than the client connects, its listen backlog overflows',
      'and the streams open through SYN retries, 125 s for 10,000: a finding of its own, not memory);',
      `each with an event every ${F.intervalMs} ms (random phase), ${F.eventsPerStream} events per stream`,
      `(the first, the task, at once), ${F.rounds} round(s). RSS of the proxy process before, once`,
      'all are open, and the peak (VmHWM and 100 ms samples); KB per stream = (RSS − RSS before) / streams open.',
      F.requested && F.requested !== F.streams
        ? `${F.requested.toLocaleString('en')} were asked for; the open-files limit allowed ${F.streams.toLocaleString('en')}` +
            ' (the proxy holds two sockets per stream).'
        : '',
    ),
    '',
    table(
      [
        'path',
        'streams open',
        'open s',
        'events',
        'delay p99 ms',
        'RSS before MB',
        'RSS all open MB',
        'RSS peak MB',
        'KB/stream all open',
        'KB/stream peak',
        'errors',
      ],
      availablePaths(results).map((p) => row(m, p)),
    ),
    '',
  ];
}

export default {
  id: 10,
  title: 'SSE fan-in at scale, 10,000 open streams (only with --scenarios 10)',
  optIn: true,
  async run(ctx) {
    const F = ctx.settings.faninScale;
    await restartProxies(ctx, 'scenario 10');
    ctx.log(`scenario 10: SSE fan-in at scale, ${F.streams} open streams, an event every ${F.intervalMs} ms`);
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
        openTimeoutMs: 120_000,
        paced: true,
      });
    return { s10_fanin_scale: await runRounds(ctx, 's10_fanin_scale', F.rounds, fanIn, describe) };
  },
  render,
};
