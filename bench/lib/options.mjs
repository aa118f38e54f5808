// Command line and run settings of bench/run.mjs: node:util parseArgs (as src/cli.ts) and the
// two sizes of run, full and --quick.
import path from 'node:path';
import { parseArgs } from 'node:util';
import { benchDir } from './paths.mjs';

const MB = 1e6;

const FULL = {
  mode: 'full',
  rounds: 3,
  warmupS: 1,
  unary: { connections: 32, durationS: 4, latencyRate: 500, latencyConnections: 2, latencyDurationS: 3 },
  sse: { rounds: 5, burstEvents: 10_000, eventBytes: 512, pacedEvents: 2000, pacedRate: 1000 },
  fanin: { rounds: 2, streams: 1000, intervalMs: 1500, eventsPerStream: 6, eventBytes: 512 },
  faninScale: { rounds: 1, streams: 10_000, intervalMs: 10_000, eventsPerStream: 3, eventBytes: 512 },
  large: { rounds: 2, bytes: 100 * MB, sseEventBytes: 1 * MB },
  rescue: { sends: 30, taskMs: 300, pollInitialMs: 250, pollMaxMs: 1000, concurrency: 4 },
  telemetry: { rounds: 11 },
  grpc: {
    unary: {
      connections: 4,
      concurrency: 32,
      durationS: 4,
      latencyRate: 500,
      latencyConnections: 2,
      latencyDurationS: 3,
    },
    stream: { connections: 4, concurrency: 16, events: 1000, durationS: 4 },
  },
  profile: { durationS: 3 },
};

const QUICK = {
  mode: 'quick',
  rounds: 1,
  warmupS: 0.5,
  unary: { connections: 32, durationS: 2, latencyRate: 500, latencyConnections: 2, latencyDurationS: 2 },
  sse: { rounds: 3, burstEvents: 2000, eventBytes: 512, pacedEvents: 1000, pacedRate: 1000 },
  fanin: { rounds: 1, streams: 200, intervalMs: 1000, eventsPerStream: 3, eventBytes: 512 },
  faninScale: { rounds: 1, streams: 10_000, intervalMs: 10_000, eventsPerStream: 3, eventBytes: 512 },
  large: { rounds: 1, bytes: 20 * MB, sseEventBytes: 1 * MB },
  rescue: { sends: 8, taskMs: 300, pollInitialMs: 250, pollMaxMs: 1000, concurrency: 4 },
  telemetry: { rounds: 1 },
  grpc: {
    unary: {
      connections: 4,
      concurrency: 32,
      durationS: 2,
      latencyRate: 500,
      latencyConnections: 2,
      latencyDurationS: 2,
    },
    stream: { connections: 4, concurrency: 16, events: 1000, durationS: 2 },
  },
  profile: { durationS: 3 },
};

export const HELP = `usage: node bench/run.mjs [options]   (npm run bench -- [options])
  --quick            short run (under two minutes); results go to bench/out/
  --write            also overwrite bench/RESULTS.md and bench/results.json (default only for a full, unfiltered run)
  --profile          also run each gateway variant under node --cpu-prof and summarise the profile
                     (a full run does this by default; --no-profile turns it off)
  --paths a,b        only these paths (direct,nginx,node,gateway,...); direct is always included
  --with a,b         also run these optional gateway variants (e.g. gateway+rescue)
  --scenarios 1,3    only these scenarios (1-11; 6 = timeout-rescue timing, 7 = telemetry cost side by side,
                     8 = gRPC unary, 9 = gRPC streaming; only when named: 10 = 10,000 open streams,
                     11 = GetTask about a pinned task)
  --rounds N         rounds of the unary scenarios, paced SSE, scenarios 8-9 and 7 (default 3, 11 for
                     scenario 7; quick 1): more rounds, steadier medians on a noisy machine
  --streams N        open streams of scenario 10, the fan-in at scale (default 10,000; only with --scenarios 10)
  --out DIR          where quick/filtered results go (default bench/out)
  --gateway-cli FILE benchmark this build of the gateway instead of dist/cli.js (e.g. a clean build of a commit)
  --baseline-cli FILE  also run path 'gateway@baseline': the default gateway from this other build, side by
                     side with 'gateway' in the same run (a change's cost, measured against the build before it)
  --nginx FILE       the nginx binary (default: nginx on PATH or in /usr/sbin)
  --render FILE      only re-render RESULTS.md (next to FILE) from a results.json; runs nothing
  --help`;

const OPTIONS = {
  quick: { type: 'boolean', default: false },
  write: { type: 'boolean', default: false },
  profile: { type: 'boolean' },
  paths: { type: 'string' },
  with: { type: 'string' },
  scenarios: { type: 'string' },
  rounds: { type: 'string' },
  streams: { type: 'string' },
  out: { type: 'string' },
  'gateway-cli': { type: 'string' },
  'baseline-cli': { type: 'string' },
  nginx: { type: 'string' },
  render: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
};

const list = (s) =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
const resolved = (file) => (file === undefined ? null : path.resolve(file));

/**
 * The options of one run. `profile` is null when neither --profile nor --no-profile was given
 * (the run decides), `paths` and `scenarios` null when not narrowed. Prints the help and exits
 * on --help, on a mistake exits 2.
 */
export function readOptions(argv) {
  let values;
  try {
    ({ values } = parseArgs({ args: argv, options: OPTIONS, allowNegative: true }));
  } catch (err) {
    console.error(`${err.message}\n${HELP}`);
    process.exit(2);
  }
  if (values.help) {
    console.log(HELP);
    process.exit(0);
  }
  return {
    quick: values.quick,
    write: values.write,
    profile: values.profile ?? null,
    paths: values.paths === undefined ? null : list(values.paths),
    scenarios: values.scenarios === undefined ? null : values.scenarios.split(',').map((s) => Number(s.trim())),
    out: values.out === undefined ? path.join(benchDir, 'out') : path.resolve(values.out),
    gatewayCli: resolved(values['gateway-cli']),
    baselineCli: resolved(values['baseline-cli']),
    nginx: resolved(values.nginx),
    render: resolved(values.render),
    rounds: values.rounds === undefined ? undefined : Number(values.rounds),
    streams: values.streams === undefined ? undefined : Number(values.streams),
    with: values.with === undefined ? [] : list(values.with),
  };
}

/** The settings of this run (a copy: the run may lower the fan-in's stream count). */
export function settingsFor(opts) {
  const S = JSON.parse(JSON.stringify(opts.quick ? QUICK : FULL));
  if (opts.rounds !== undefined) {
    if (!Number.isInteger(opts.rounds) || opts.rounds < 1) throw new Error('--rounds needs a whole number ≥ 1');
    S.rounds = opts.rounds;
    S.telemetry = { rounds: opts.rounds };
  }
  if (opts.streams !== undefined) {
    if (!Number.isInteger(opts.streams) || opts.streams < 1) throw new Error('--streams needs a whole number ≥ 1');
    S.faninScale.streams = opts.streams;
  }
  return S;
}
