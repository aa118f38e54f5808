// Benchmark harness: gateway vs direct, nginx and a plain Node pass-through, side by side in
// one run. See bench/README.md.
//
//   npm run bench                 full run (~10 min), writes bench/RESULTS.md + bench/results.json
//   npm run bench -- --quick      under two minutes, writes bench/out/ (--write: RESULTS.md too)
//   node bench/run.mjs --help
//
// Parse the options, start the upstreams and the paths, run each selected scenario
// (bench/scenarios/), write results.json and RESULTS.md. Everything runs on 127.0.0.1;
// everything started is stopped at the end, on error and on Ctrl-C.
import {
  mkdtempSync,
  chmodSync,
  rmSync,
  mkdirSync,
  writeFileSync,
  readFileSync,
  readdirSync,
  copyFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { installCleanup, stopAll, httpRequest, fileExists } from './lib/procs.mjs';
import { findNginx } from './lib/nginx.mjs';
import { benchDir, gatewayCli } from './lib/paths.mjs';
import { readOptions, settingsFor } from './lib/options.mjs';
import { machineInfo, ensureOpenFiles } from './lib/machine.mjs';
import { openFilesLimit } from './lib/procs.mjs';
import { startUpstreams, startOtlpSink, startRedisServer, selectPaths, startPaths } from './lib/setup.mjs';
import { profileGateways } from './lib/profile-pass.mjs';
import { evaluateTargets } from './lib/targets.mjs';
import { renderMarkdown } from './lib/report.mjs';
import { SCENARIOS } from './scenarios/index.mjs';

const log = (...a) => console.log(...a);

/** --render: RESULTS.md again from a results.json (next to it); runs nothing. */
function renderOnly(file) {
  const results = JSON.parse(readFileSync(file, 'utf8'));
  results.targets = evaluateTargets(results);
  const md = path.join(path.dirname(file), 'RESULTS.md');
  writeFileSync(md, renderMarkdown(results));
  log(`wrote ${path.relative(process.cwd(), md)}`);
}

/** The scenarios --scenarios names (all without it); an id that does not exist stops the run. */
function selectScenarios(ids) {
  const unknown = ids?.filter((id) => !SCENARIOS.some((s) => s.id === id)) ?? [];
  if (unknown.length) {
    const known = [...SCENARIOS]
      .sort((a, b) => a.id - b.id)
      .map((s) => `  ${s.id}  ${s.title}`)
      .join('\n');
    console.error(`no scenario ${unknown.join(', ')}; the scenarios are:\n${known}`);
    process.exit(2);
  }
  return SCENARIOS.filter((s) => (ids ? ids.includes(s.id) : !s.optIn));
}

/** The nginx binary; without one the run stops and says how to install it. */
function requireNginx(opts) {
  const bin = opts.nginx ? (fileExists(opts.nginx) ? opts.nginx : null) : findNginx();
  if (bin) return bin;
  console.error(`nginx was not found (looked on PATH and in /usr/sbin).
The harness uses the distribution's nginx both as the fixed-response upstream and as the
industry-baseline proxy, and installs nothing by itself. Install it with:

    apt-get install nginx        (Debian/Ubuntu; sudo if not root)

then run the benchmark again.`);
  process.exit(2);
}

/** File descriptors a proxy needs besides its streams' sockets (listeners, pools, logs). */
const SCALE_SPARE_FDS = 100;

/**
 * The fan-in holds two sockets per stream: fewer streams when the open-files limit cannot be
 * raised. Returns false when the run goes on in a child under a raised limit instead.
 */
function fitOpenFiles(S, scenarios) {
  // Scenario 10: the proxy holds two sockets per stream plus a few of its own, and no process
  // can go past the hard limit: fewer streams when even that is too low.
  const scale = scenarios.some((s) => s.id === 10);
  const lim = openFilesLimit();
  if (scale && lim && lim.hard < S.faninScale.streams * 2 + SCALE_SPARE_FDS) {
    const fit = Math.max(50, Math.floor((lim.hard - SCALE_SPARE_FDS) / 2));
    log(
      `warning: the hard open-files limit ${lim.hard} is too low for ${S.faninScale.streams} streams through a ` +
        `proxy (two sockets each); scenario 10 uses ${fit}.`,
    );
    S.faninScale.requested = S.faninScale.streams;
    S.faninScale.streams = fit;
  }
  const needed = Math.max(
    (scenarios.some((s) => s.id === 4) ? S.fanin.streams * 2 : 0) + 1024,
    scale ? S.faninScale.streams * 2 + SCALE_SPARE_FDS : 0,
  );
  const nf = ensureOpenFiles(needed, log);
  if (nf.reexec) return false;
  if (!nf.ok) {
    const fit = Math.max(50, Math.floor((nf.lim.soft - 1024) / 2));
    log(
      `warning: open-files limit ${nf.lim.soft} (hard ${nf.lim.hard}) is too low for ${S.fanin.streams} streams; ` +
        `using ${fit}. Raise it with \`ulimit -n ${needed}\`.`,
    );
    S.fanin.streams = fit;
  }
  return true;
}

/** A temporary directory for configs and bodies, removed at the end, on error and on Ctrl-C. */
function makeRunDir() {
  const runDir = mkdtempSync(path.join(os.tmpdir(), 'a2a-bench-'));
  chmodSync(runDir, 0o755); // nginx workers run as an unprivileged user when started by root
  const remove = () => rmSync(runDir, { recursive: true, force: true });
  installCleanup(remove, remove);
  return runDir;
}

async function otlpSinkStats(url) {
  try {
    return JSON.parse((await httpRequest(`${url}/stats`)).body);
  } catch {
    return undefined; // sink gone
  }
}

/** Start the upstreams and the paths, run the scenarios and the profile pass into `results`. */
async function measure(ctx, opts, results) {
  const fiveRuns = ctx.scenarios.some((s) => s.id === 5);
  const grpc = ctx.scenarios.some((s) => s.grpc);
  const wanted = selectPaths(opts, ctx.cli);
  const a2a03 = wanted.some((p) => p.variant?.upstream03);
  await startUpstreams(ctx, { largeBytes: fiveRuns ? ctx.settings.large.bytes : 0, grpc, a2a03 });
  if (wanted.some((p) => p.variant?.otlpSink)) await startOtlpSink(ctx);
  if (wanted.some((p) => p.variant?.redis)) await startRedisServer(ctx);
  results.paths.push(...(await startPaths(ctx, wanted)));
  for (const s of ctx.scenarios) {
    for (const [key, data] of Object.entries(await s.run(ctx))) if (data !== undefined) results.scenarios[key] = data;
  }
  if (ctx.profile) results.profiles = await profileGateways(ctx, path.join(opts.out, 'profiles'));
  if (ctx.otlpSinkUrl) {
    const stats = await otlpSinkStats(ctx.otlpSinkUrl);
    if (stats) results.meta.otlpSink = stats;
  }
}

/** Write RESULTS.md and results.json to `opts.out`, and over bench/'s own when `writeMain`. */
function writeResults(results, opts, writeMain) {
  results.targets = evaluateTargets(results);
  const md = renderMarkdown(results);
  mkdirSync(opts.out, { recursive: true });
  const outs = [path.join(opts.out, 'RESULTS.md'), path.join(opts.out, 'results.json')];
  if (writeMain) outs.push(path.join(benchDir, 'RESULTS.md'), path.join(benchDir, 'results.json'));
  for (const f of outs) writeFileSync(f, f.endsWith('.md') ? md : `${JSON.stringify(results, null, 2)}\n`);
  return outs;
}

/** The gateway targets of the paths that ran, one console line each. */
function logTargets(results) {
  const measured = new Set(results.paths.filter((p) => p.available).map((p) => p.name));
  const shown = (t) => t.primary && measured.has(t.path) && !t.valueText.endsWith(' not run');
  for (const t of results.targets.filter(shown)) {
    const verdict = t.met === true ? 'met   ' : t.met === false ? 'MISSED' : 'n/a   ';
    log(`target ${verdict} ${t.path}: ${t.text} — ${t.valueText}`);
  }
}

async function main() {
  const opts = readOptions(process.argv.slice(2));
  if (opts.render) return renderOnly(opts.render);
  const S = settingsFor(opts);
  const scenarios = selectScenarios(opts.scenarios);
  const narrowed = Boolean(opts.paths || opts.scenarios);
  const t0 = Date.now();
  const nginxBin = requireNginx(opts);
  if (!fitOpenFiles(S, scenarios)) return;

  const cli = opts.gatewayCli ?? gatewayCli;
  const meta = { ...machineInfo(nginxBin, cli), mode: S.mode };
  log(`a2a-gateway benchmark (${S.mode}) — ${meta.cpuModel}, ${meta.cores} cores, Node ${meta.node}, ${meta.nginx}`);
  log(`load average ${meta.loadAvgAtStart.join(' ')}; other work on this machine shows up as noise.`);
  const runDir = makeRunDir();
  const results = { meta, settings: S, paths: [], scenarios: {}, notes: [], profiles: [] };
  const ctx = {
    settings: S,
    scenarios,
    profile: opts.profile ?? (!opts.quick && !narrowed),
    cli,
    runDir,
    nginxBin,
    readyAgent: 'small',
    routes: null,
    otlpSinkUrl: null,
    redisUrl: null,
    grpcUpstream: null,
    upstreamPids: null,
    paths: [],
    notes: results.notes,
    log,
  };
  try {
    await measure(ctx, opts, results);
  } finally {
    for (const p of ctx.paths.slice().reverse()) await p.stop().catch(() => {});
    await stopAll();
  }

  results.meta.wallSeconds = Math.round((Date.now() - t0) / 1000);
  const outs = writeResults(results, opts, opts.write || (!opts.quick && !narrowed));
  log('');
  logTargets(results);
  log(`\nwrote ${outs.map((f) => path.relative(process.cwd(), f)).join(', ')} in ${results.meta.wallSeconds} s`);
  keepGcLogs(runDir, path.join(opts.out, 'gc'));
  rmSync(runDir, { recursive: true, force: true });
}

/** The GC logs of the measured processes (lib/gc-probe.mjs), kept under `<out>/gc/` for reading. */
function keepGcLogs(runDir, dir) {
  const logs = readdirSync(runDir).filter((f) => /^gc-.*\.log$/.test(f));
  if (!logs.length) return;
  mkdirSync(dir, { recursive: true });
  for (const f of logs) copyFileSync(path.join(runDir, f), path.join(dir, f));
}

main().catch(async (err) => {
  console.error(err?.stack ?? err);
  await stopAll();
  process.exit(1);
});
