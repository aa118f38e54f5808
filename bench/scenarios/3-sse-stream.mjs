// Scenario 3: one long SSE stream. Events per second with the upstream writing as fast as the
// path takes them, and the delay each event picks up on a second stream paced at a fixed rate.
import { sseBurst, ssePaced } from '../lib/measure.mjs';
import { runRounds } from '../lib/rounds.mjs';
import { f, k, signed, diff, paragraph, table, measurement, availablePaths } from '../lib/markdown.mjs';

const url = (p) => `${p.agentUrl('sse')}/a2a/jsonrpc`;
const incomplete = (v) => (v.complete ? '' : ' INCOMPLETE');
const describeBurst = (v) => `${f(v.eventsPerSec, 0)} events/s, ${v.events} events${incomplete(v)}`;
const describePaced = (v) =>
  `@${v.rate}/s: delay p50 ${f(v.delayP50ms, 3)} ms, p99 ${f(v.delayP99ms, 3)} ms${incomplete(v)}`;

function row(burst, paced, p) {
  const added = (field) => (p === 'direct' ? '—' : signed(diff(paced.med(p, field), paced.med('direct', field))));
  return [
    p,
    k(burst.med(p, 'eventsPerSec')),
    burst.roundsText(p, 'eventsPerSec', k),
    ...burst.vsReferences(p, 'eventsPerSec'),
    f(paced.med(p, 'delayP50ms'), 3),
    f(paced.med(p, 'delayP99ms'), 3),
    added('delayP50ms'),
    added('delayP99ms'),
    `${burst.errors(p)} / ${paced.errors(p)}`,
  ];
}

function render(results) {
  const S = results.settings;
  const burst = measurement(results, 's3_burst');
  const paced = measurement(results, 's3_paced');
  if (!burst.ran && !paced.ran) return [];
  const header = ['path', 'events/s (median)', 'rounds', 'vs direct', 'vs nginx', 'vs plain Node'];
  return [
    `## Scenario 3: SSE, one stream of ${S.sse.burstEvents.toLocaleString('en')} events`,
    '',
    paragraph(
      `Events of ~${S.sse.eventBytes} B (statusUpdate).`,
      'Throughput: the upstream writes as fast as the path takes them (honouring backpressure),',
      `${S.sse.rounds} round(s).`,
      `Delay: a second stream of ${S.sse.pacedEvents.toLocaleString('en')} events paced at ${S.sse.pacedRate}/s,`,
      'delay = receive time − the send time the upstream put in the event (both CLOCK_MONOTONIC),',
      `${S.rounds} round(s). "Added" = this path's percentile − direct's.`,
    ),
    '',
    table(
      [...header, 'paced delay p50 ms', 'p99 ms', 'added p50', 'added p99', 'errors'],
      availablePaths(results).map((p) => row(burst, paced, p)),
    ),
    '',
  ];
}

export default {
  id: 3,
  title: 'SSE, one long stream',
  async run(ctx) {
    const { sse } = ctx.settings;
    ctx.log(`scenario 3: SSE, one stream of ${sse.burstEvents} events (${sse.eventBytes} B each)`);
    const warmup = Math.min(2000, sse.burstEvents);
    for (const p of ctx.paths) await sseBurst({ url: url(p), events: warmup, eventBytes: sse.eventBytes });
    const burst = (p) => sseBurst({ url: url(p), events: sse.burstEvents, eventBytes: sse.eventBytes, pid: p.pid });
    const paced = (p) =>
      ssePaced({ url: url(p), events: sse.pacedEvents, eventBytes: sse.eventBytes, rate: sse.pacedRate });
    return {
      s3_burst: await runRounds(ctx, 's3_burst', sse.rounds, burst, describeBurst),
      s3_paced: await runRounds(ctx, 's3_paced', ctx.settings.rounds, paced, describePaced),
    };
  },
  /** The profile pass's load: three bursts, unmeasured. */
  async profile(ctx, p) {
    const { sse } = ctx.settings;
    for (let i = 0; i < 3; i++) await sseBurst({ url: url(p), events: sse.burstEvents, eventBytes: sse.eventBytes });
  },
  render,
};
