// Scenario 7: what telemetry costs, side by side. The gateway with metrics and tracing off and a
// telemetry variant take scenario 1's load at the same time (half the connections each), so
// both see the same moments of the machine; rounds repeat that.
import { sendMessageRequest } from '../lib/payloads.mjs';
import { unaryThroughputSideBySide, unaryWarmup } from '../lib/measure.mjs';
import { medianOfRounds } from '../lib/stats.mjs';
import { f, x, paragraph, table } from '../lib/markdown.mjs';

const REFERENCE = 'gateway-no-metrics';
const VARIANTS = [
  'gateway',
  'gateway+tracing',
  'gateway+tracing-protobuf',
  'gateway+tracing-10pct',
  'gateway-no-metrics-control',
];
const REQUEST = sendMessageRequest();
const url = (p) => `${p.agentUrl('small')}/a2a/jsonrpc`;

/** One round of one variant against the reference: both loaded at once, after a warm-up. */
async function measurePair(S, reference, p) {
  const pair = [reference, p].map((x) => ({ url: url(x), pid: x.pid }));
  const connections = S.unary.connections / 2;
  // A variant sits idle while the others are measured; the reference never does.
  // One unmeasured second of the same load first, so both start the round warm.
  await unaryThroughputSideBySide(pair, { body: REQUEST, connections, durationS: S.warmupS });
  const [ref, v] = await unaryThroughputSideBySide(pair, { body: REQUEST, connections, durationS: S.unary.durationS });
  return {
    rps: v.rps,
    referenceRps: ref.rps,
    rpsRatio: v.rps / ref.rps,
    cpuPer10k: v.cpuPer10k,
    referenceCpuPer10k: ref.cpuPer10k,
    cpuRatio: v.cpuPer10k && ref.cpuPer10k ? v.cpuPer10k / ref.cpuPer10k : null,
    errors: v.errors + ref.errors,
  };
}

function describe(round) {
  return (
    `${Math.round(round.rps)} req/s vs ${Math.round(round.referenceRps)} (${round.rpsRatio.toFixed(3)}×), ` +
    `CPU per request ${round.cpuRatio?.toFixed(3) ?? '—'}×, errors ${round.errors}`
  );
}

async function run(ctx) {
  const S = ctx.settings;
  const reference = ctx.paths.find((p) => p.name === REFERENCE);
  const variants = ctx.paths.filter((p) => VARIANTS.includes(p.name));
  if (!reference || variants.length === 0) {
    ctx.log(`scenario 7: needs ${REFERENCE} and one of ${VARIANTS.join(', ')}; skipped`);
    return {};
  }
  ctx.log(`scenario 7: telemetry cost, each variant side by side with ${reference.name}`);
  const s7 = {
    reference: reference.name,
    connections: S.unary.connections / 2,
    durationS: S.unary.durationS,
    byPath: {},
  };
  for (const p of [reference, ...variants]) await unaryWarmup({ url: url(p), body: REQUEST, durationS: S.warmupS });
  for (let r = 0; r < S.telemetry.rounds; r++) {
    for (const p of variants) {
      const slot = (s7.byPath[p.name] ??= { rounds: [] });
      try {
        const round = await measurePair(S, reference, p);
        slot.rounds.push(round);
        ctx.log(`  [s7 r${r + 1}] ${p.name} ${describe(round)}`);
      } catch (err) {
        slot.rounds.push({ error: err.message });
        ctx.log(`  [s7 r${r + 1}] ${p.name} failed: ${err.message}`);
      }
    }
  }
  for (const slot of Object.values(s7.byPath)) slot.median = medianOfRounds(slot.rounds.filter((x) => x && !x.error));
  return { s7_side_by_side: s7 };
}

function row(name, slot) {
  const ok = slot.rounds.filter((r) => r && !r.error);
  const errors = ok.reduce((n, r) => n + (r.errors ?? 0), 0) + (slot.rounds.length - ok.length);
  return [
    name,
    `${x(slot.median?.rpsRatio)} (${ok.map((r) => x(r.rpsRatio)).join(', ')})`,
    `${x(slot.median?.cpuRatio)} (${ok.map((r) => x(r.cpuRatio)).join(', ')})`,
    slot.median?.rpsRatio ? `${f((1 - slot.median.rpsRatio) * 100, 1)} %` : '—',
    String(errors),
  ];
}

function render(results) {
  const S = results.settings;
  const s7 = results.scenarios.s7_side_by_side;
  if (!s7) return [];
  const header = ['path', 'throughput vs reference (rounds)', 'CPU per request vs reference (rounds)'];
  const lines = [
    '## Scenario 7: what telemetry costs, side by side',
    '',
    paragraph(
      `Each telemetry variant and \`${s7.reference}\` (metrics and tracing off)`,
      "take scenario 1's load at the same time,",
      `${s7.connections} connections each for ${s7.durationS} s after an unmeasured warm-up of the same load,`,
      `so both see the same moments of the machine; ${S.telemetry?.rounds ?? S.rounds} round(s),`,
      'medians of the per-round ratios. CPU = utime+stime of each gateway process per request.',
      'Cost = 1 − throughput ratio.',
    ),
    '',
    table(
      [...header, 'cost (median)', 'errors'],
      Object.entries(s7.byPath).map(([name, slot]) => row(name, slot)),
    ),
    '',
  ];
  if (s7.byPath['gateway-no-metrics-control'])
    lines.push(
      paragraph(
        `\`gateway-no-metrics-control\` is a second copy of \`${s7.reference}\` measured the same way:`,
        'its row is what the method shows when there is nothing to measure (its bias and spread), not a cost.',
      ),
      '',
    );
  return lines;
}

export default { id: 7, title: 'what telemetry costs, side by side', run, render };
