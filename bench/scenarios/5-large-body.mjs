// Scenario 5: one large body, unary (one huge artifact) and as an SSE stream of large events:
// throughput, and how much the proxy's RSS grows while it passes through.
import { sendMessageRequest } from '../lib/payloads.mjs';
import { largeUnary, largeSse } from '../lib/measure.mjs';
import { runRounds } from '../lib/rounds.mjs';
import { restartProxies } from '../lib/setup.mjs';
import { f, x, paragraph, table, measurement, availablePaths } from '../lib/markdown.mjs';
import { ratio } from '../lib/stats.mjs';

const url = (p, agent) => `${p.agentUrl(agent)}/a2a/jsonrpc`;
const describe = (v) =>
  `${f(v.mbps, 0)} MB/s in ${f(v.seconds, 2)} s${v.complete ? '' : ` INCOMPLETE (${v.error ?? ''})`}, ` +
  `RSS ${f(v.rssBaselineMB)} → ${f(v.rssPeakMB)} MB`;

/** Four columns for one transfer: MB/s, against direct, RSS before → peak, growth. */
function transfer(m, p) {
  const rss = p === 'direct' ? '—' : `${f(m.med(p, 'rssBaselineMB'))} → ${f(m.worst(p, 'rssPeakMB'))}`;
  return [
    f(m.med(p, 'mbps'), 0),
    x(ratio(m.med(p, 'mbps'), m.med('direct', 'mbps'))),
    rss,
    f(m.worst(p, 'rssGrowthMB')),
  ];
}

function render(results) {
  const L = results.settings.large;
  const unary = measurement(results, 's5_unary');
  const sse = measurement(results, 's5_sse');
  if (!unary.ran && !sse.ran) return [];
  const mb = f(L.bytes / 1e6, 0);
  const header = ['path', 'unary MB/s', 'vs direct', 'unary RSS before → peak MB', 'unary growth MB'];
  return [
    `## Scenario 5: large bodies (${mb} MB)`,
    '',
    paragraph(
      `Unary: SendMessage answered by a Task whose one artifact holds one ${mb} MB text part.`,
      `SSE: a stream of ~${f(L.sseEventBytes / 1e6, 1)} MB artifactUpdate events adding up to the same size.`,
      `${L.rounds} round(s); throughput median, RSS growth = peak − RSS before, worst round.`,
    ),
    '',
    table(
      [...header, 'SSE MB/s', 'vs direct', 'SSE RSS before → peak MB', 'SSE growth MB', 'errors'],
      availablePaths(results).map((p) => [
        p,
        ...transfer(unary, p),
        ...transfer(sse, p),
        `${unary.errors(p)} / ${sse.errors(p)}`,
      ]),
    ),
    '',
  ];
}

export default {
  id: 5,
  title: 'large bodies',
  async run(ctx) {
    const L = ctx.settings.large;
    await restartProxies(ctx, 'scenario 5');
    ctx.log(`scenario 5: large bodies, ${f(L.bytes / 1e6, 0)} MB`);
    const body = sendMessageRequest();
    const unary = (p) => largeUnary({ url: url(p, 'large'), body, expectedBytes: L.bytes, pid: p.pid });
    const sse = (p) => largeSse({ url: url(p, 'sse'), totalBytes: L.bytes, eventBytes: L.sseEventBytes, pid: p.pid });
    return {
      s5_unary: await runRounds(ctx, 's5_unary', L.rounds, unary, describe),
      s5_sse: await runRounds(ctx, 's5_sse', L.rounds, sse, describe),
    };
  },
  render,
};
