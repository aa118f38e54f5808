// The "## Every core" section of RESULTS.md (issue #17): the gateway with one process and with
// `workers: 2`, both on Redis state (workers need it), from scenarios 1 and 2's throughput rounds.
// CPU per request is summed over the primary and its workers (procs.mjs readTreeCpuSeconds).
import { f, k, x, paragraph, table, measurement } from './markdown.mjs';
import { ratio } from './stats.mjs';

const ONE = 'gateway+redis';
const TWO = 'gateway-workers2';

export function renderWorkers(results) {
  const ran = (name) => results.paths.some((p) => p.name === name && p.available);
  if (!ran(TWO)) return [];
  const rows = [];
  for (const key of ['s1_throughput', 's2_throughput']) {
    const m = measurement(results, key);
    if (!m.ran) continue;
    for (const p of [ONE, TWO].filter(ran)) {
      const own = m.med(p, 'ownCpuPer10k');
      rows.push([key, p, k(m.med(p, 'rps')), m.roundsText(p, 'rps', k), f(m.med(p, 'cpuPer10k'), 2), f(own, 2)]);
    }
    const cpuRatio = ratio(m.med(TWO, 'cpuPer10k'), m.med(ONE, 'cpuPer10k'));
    const rpsRatio = ratio(m.med(TWO, 'rps'), m.med(ONE, 'rps'));
    rows.push([key, `${TWO} / ${ONE}`, x(rpsRatio), '', x(cpuRatio), '']);
  }
  if (!rows.length) return [];
  const cores = results.meta.cores;
  return [
    '## Every core: 1 and 2 workers',
    '',
    paragraph(
      `\`${ONE}\` (one process) and \`${TWO}\` (\`workers: 2\`: a primary and two workers sharing the`,
      'listener), both on the loopback redis-server. CPU s / 10k: utime+stime of the primary and every',
      'worker (every pid of the process tree, read from /proc) per 10,000 responses.',
      `On this ${cores}-core machine the load generator, nginx, redis-server and the workers all compete`,
      'for the same cores, so throughput cannot scale here; CPU per request is the figure that carries',
      'over: on a machine with a core per worker to spare, throughput scales with the workers as long',
      'as CPU per request stays flat, i.e. N workers ≈ N × one process when the ratio below is ≈ 1.00×.',
    ),
    '',
    table(
      ['measurement', 'path', 'req/s (median)', 'rounds', 'CPU s / 10k req (all processes)', 'of which the primary'],
      rows,
    ),
    '',
  ];
}
