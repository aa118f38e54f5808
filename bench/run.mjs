// Benchmark harness: gateway vs direct, nginx and a plain Node pass-through, side by side in
// one run. See bench/README.md.
//
//   npm run bench                 full run (~10 min), writes bench/RESULTS.md + bench/results.json
//   npm run bench -- --quick      under two minutes, writes bench/out/ (add --write to overwrite RESULTS.md)
//   node bench/run.mjs --help
//
// Everything runs on 127.0.0.1; everything started is stopped at the end, on error and on Ctrl-C.
import {
  mkdtempSync,
  chmodSync,
  rmSync,
  mkdirSync,
  writeFileSync,
  openSync,
  writeSync,
  closeSync,
  readdirSync,
  statSync,
  readFileSync,
} from 'node:fs';
import { spawn, execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import {
  installCleanup,
  startProcess,
  stopAll,
  freePort,
  waitForHttp,
  httpRequest,
  openFilesLimit,
  sleep,
  fileExists,
} from './lib/procs.mjs';
import { findNginx, nginxVersion, upstreamConfig, startNginx } from './lib/nginx.mjs';
import {
  A2A_HEADERS,
  SMALL_MESSAGE_RESPONSE,
  TASK_10K_RESPONSE,
  sendMessageRequest,
  agentCard,
  hugeTaskParts,
  filler,
} from './lib/payloads.mjs';
import {
  directPath,
  nginxPath,
  nodePath,
  gatewayPath,
  GATEWAY_VARIANTS,
  benchDir,
  repoDir,
  gatewayCli,
} from './lib/paths.mjs';
import {
  unaryThroughput,
  unaryThroughputSideBySide,
  unaryLatency,
  unaryWarmup,
  sseBurst,
  ssePaced,
  sseFanIn,
  largeUnary,
  largeSse,
} from './lib/measure.mjs';
import { openStream } from './lib/sse-client.mjs';
import { medianOfRounds } from './lib/stats.mjs';

/** Scenario 7: telemetry variants, each measured side by side with the gateway without telemetry. */
const TELEMETRY_REFERENCE = 'gateway-no-metrics';
const TELEMETRY_VARIANTS = [
  'gateway',
  'gateway+tracing',
  'gateway+tracing-protobuf',
  'gateway+tracing-10pct',
  'gateway-no-metrics-control',
];
import { measureRescueTiming } from './lib/rescue-timing.mjs';
import { evaluateTargets, renderMarkdown } from './lib/report.mjs';
import { summariseProfile, formatSummary } from './profile-summary.mjs';

const MiB = 1024 * 1024;
const MB = 1e6;

const FULL = {
  mode: 'full',
  rounds: 3,
  warmupS: 1,
  unary: { connections: 32, durationS: 4, latencyRate: 500, latencyConnections: 2, latencyDurationS: 3 },
  sse: { rounds: 5, burstEvents: 10_000, eventBytes: 512, pacedEvents: 2000, pacedRate: 1000 },
  fanin: { rounds: 2, streams: 1000, intervalMs: 1500, eventsPerStream: 6, eventBytes: 512 },
  large: { rounds: 2, bytes: 100 * MB, sseEventBytes: 1 * MB },
  rescue: { sends: 30, taskMs: 300, pollInitialMs: 250, pollMaxMs: 1000, concurrency: 4 },
  telemetry: { rounds: 11 },
  profile: { durationS: 3 },
};

const QUICK = {
  mode: 'quick',
  rounds: 1,
  warmupS: 0.5,
  unary: { connections: 32, durationS: 2, latencyRate: 500, latencyConnections: 2, latencyDurationS: 2 },
  sse: { rounds: 3, burstEvents: 2000, eventBytes: 512, pacedEvents: 1000, pacedRate: 1000 },
  fanin: { rounds: 1, streams: 200, intervalMs: 1000, eventsPerStream: 3, eventBytes: 512 },
  large: { rounds: 1, bytes: 20 * MB, sseEventBytes: 1 * MB },
  rescue: { sends: 8, taskMs: 300, pollInitialMs: 250, pollMaxMs: 1000, concurrency: 4 },
  telemetry: { rounds: 1 },
  profile: { durationS: 3 },
};

const HELP = `usage: node bench/run.mjs [options]   (npm run bench -- [options])
  --quick            short run (under two minutes); results go to bench/out/
  --write            also overwrite bench/RESULTS.md and bench/results.json (default only for a full, unfiltered run)
  --profile          also run each gateway variant under node --cpu-prof and summarise the profile
                     (a full run does this by default; --no-profile turns it off)
  --paths a,b        only these paths (direct,nginx,node,gateway,...); direct is always included
  --with a,b         also run these optional gateway variants (e.g. gateway+rescue)
  --scenarios 1,3    only these scenarios (1-7; 6 = timeout-rescue timing, 7 = telemetry cost side by side)
  --rounds N         rounds of the unary scenarios, paced SSE and scenario 7 (default 3, 11 for
                     scenario 7; quick 1): more rounds, steadier medians on a noisy machine
  --out DIR          where quick/filtered results go (default bench/out)
  --gateway-cli FILE benchmark this build of the gateway instead of dist/cli.js (e.g. a clean build of a commit)
  --nginx FILE       the nginx binary (default: nginx on PATH or in /usr/sbin)
  --render FILE      only re-render RESULTS.md (next to FILE) from a results.json; runs nothing
  --help`;

function parseArgs(argv) {
  const o = {
    quick: false,
    write: false,
    profile: null,
    paths: null,
    scenarios: null,
    out: path.join(benchDir, 'out'),
    gatewayCli: null,
    nginx: null,
    render: null,
    with: [],
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--quick') o.quick = true;
    else if (a === '--write') o.write = true;
    else if (a === '--profile') o.profile = true;
    else if (a === '--no-profile') o.profile = false;
    else if (a === '--paths')
      o.paths = argv[++i]
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
    else if (a === '--scenarios') o.scenarios = argv[++i].split(',').map((s) => Number(s.trim()));
    else if (a === '--out') o.out = path.resolve(argv[++i]);
    else if (a === '--gateway-cli') o.gatewayCli = path.resolve(argv[++i]);
    else if (a === '--nginx') o.nginx = path.resolve(argv[++i]);
    else if (a === '--render') o.render = path.resolve(argv[++i]);
    else if (a === '--rounds') o.rounds = Number(argv[++i]);
    else if (a === '--with')
      o.with = argv[++i]
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean);
    else if (a === '--help' || a === '-h') {
      console.log(HELP);
      process.exit(0);
    } else {
      console.error(`unknown option ${a}\n${HELP}`);
      process.exit(2);
    }
  }
  return o;
}

const log = (...a) => console.log(...a);
const fmt = (n, d = 1) => (typeof n === 'number' && Number.isFinite(n) ? n.toFixed(d) : '—');

/** Re-run ourselves under a raised `ulimit -n` when the soft limit is too low for the fan-in. */
function ensureOpenFiles(needed) {
  const lim = openFilesLimit();
  if (!lim || lim.soft >= needed) return { ok: true, lim };
  if (process.env.A2A_BENCH_REEXEC !== '1' && lim.hard >= needed) {
    log(`open-files limit ${lim.soft} < ${needed}: re-running under \`ulimit -n ${needed}\``);
    const child = spawn(
      '/bin/sh',
      ['-c', `ulimit -n ${needed} && exec "$0" "$@"`, process.execPath, ...process.argv.slice(1)],
      {
        stdio: 'inherit',
        env: { ...process.env, A2A_BENCH_REEXEC: '1' },
      },
    );
    // Ctrl-C reaches the child too (same process group); wait for it rather than dying first.
    process.on('SIGINT', () => {});
    process.on('SIGTERM', () => {
      try {
        process.kill(child.pid, 'SIGTERM');
      } catch {
        /* gone */
      }
    });
    child.on('exit', (code, sig) => process.exit(code ?? (sig ? 1 : 0)));
    return { ok: false, reexec: true };
  }
  return { ok: false, lim };
}

function machineInfo(nginxBin, cli) {
  let model = 'unknown';
  try {
    model = /model name\s*:\s*(.*)/.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1]?.trim() ?? model;
  } catch {
    /* not linux */
  }
  const git = (dir, ...args) => {
    try {
      return execFileSync('git', args, { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    } catch {
      return null;
    }
  };
  const commit = git(repoDir, 'rev-parse', '--short', 'HEAD');
  // Which source the measured gateway was built from, as far as can be told.
  let gatewaySource;
  if (cli !== gatewayCli) {
    const stamp = path.join(path.dirname(cli), '..', 'BENCH_SOURCE');
    const other = git(path.dirname(cli), 'rev-parse', '--short', 'HEAD');
    gatewaySource = fileExists(stamp)
      ? readFileSync(stamp, 'utf8').trim()
      : other
        ? `build at ${cli} (checkout at ${other})`
        : `build at ${cli}`;
  } else {
    const dirty = git(repoDir, 'status', '--porcelain', '--', 'src');
    gatewaySource = `dist/ of this checkout (commit ${commit ?? 'unknown'}${dirty ? ', with uncommitted changes in src/' : ''})`;
  }
  const ver = (pkg) => {
    try {
      return JSON.parse(readFileSync(path.join(repoDir, 'node_modules', pkg, 'package.json'), 'utf8')).version;
    } catch {
      return null;
    }
  };
  return {
    date: new Date().toISOString(),
    cpuModel: model,
    cores: os.cpus().length,
    memGB: Math.round(os.totalmem() / 1e9),
    loadAvgAtStart: os.loadavg().map((x) => Number(x.toFixed(2))),
    kernel: os.release(),
    node: process.version,
    nginx: nginxBin ? nginxVersion(nginxBin) : null,
    autocannon: ver('autocannon'),
    httpProxyMiddleware: ver('http-proxy-middleware'),
    commit,
    gatewayCli: path.relative(repoDir, cli).startsWith('..') ? cli : path.relative(repoDir, cli),
    gatewayBuild: fileExists(cli) ? gatewaySource : `${path.relative(repoDir, cli)} missing`,
  };
}

/** Write the 100 MB (or quick: 20 MB) JSON Task with one huge artifact for scenario 5. */
function writeLargeBody(file, bytes) {
  const { before, after, fillBytes } = hugeTaskParts(bytes);
  const fd = openSync(file, 'w');
  try {
    writeSync(fd, before);
    const chunk = Buffer.from(filler(MiB));
    let left = fillBytes;
    while (left > 0) {
      const n = Math.min(left, chunk.length);
      writeSync(fd, chunk, 0, n);
      left -= n;
    }
    writeSync(fd, after);
  } finally {
    closeSync(fd);
  }
  chmodSync(file, 0o644);
}

/** Rotate the path order each round (ABCD, BCDA, ...) so no path always runs first or last. */
function rotated(list, r) {
  const k = r % list.length;
  return list.slice(k).concat(list.slice(0, k));
}

async function verifyPath(p) {
  const problems = [];
  const body = sendMessageRequest();
  const headers = { ...A2A_HEADERS, 'content-length': Buffer.byteLength(body) };
  const small = await httpRequest(`${p.agentUrl('small')}/a2a/jsonrpc`, {
    method: 'POST',
    headers,
    body,
    timeoutMs: 5000,
  });
  if (small.status !== 200)
    return { fatal: `SendMessage (small) answered HTTP ${small.status}: ${small.body.slice(0, 200)}` };
  if (small.body !== SMALL_MESSAGE_RESPONSE) problems.push("small response body differs from the upstream's");
  const task = await httpRequest(`${p.agentUrl('task')}/a2a/jsonrpc`, {
    method: 'POST',
    headers,
    body,
    timeoutMs: 5000,
  });
  if (task.status !== 200) return { fatal: `SendMessage (task) answered HTTP ${task.status}` };
  if (task.body !== TASK_10K_RESPONSE) problems.push("task response body differs from the upstream's");
  const s = await openStream(
    `${p.agentUrl('sse')}/a2a/jsonrpc`,
    { events: 5, eventBytes: 300, mode: 'burst' },
    { timeoutMs: 10_000 },
  );
  if (s.status !== 200 || s.events !== 5)
    return { fatal: `SendStreamingMessage: HTTP ${s.status}, ${s.events}/5 events ${s.error ?? ''}` };
  return { problems };
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  if (opts.render) {
    const results = JSON.parse(readFileSync(opts.render, 'utf8'));
    results.targets = evaluateTargets(results);
    const md = path.join(path.dirname(opts.render), 'RESULTS.md');
    writeFileSync(md, renderMarkdown(results));
    log(`wrote ${path.relative(process.cwd(), md)}`);
    return;
  }
  const S = { ...(opts.quick ? QUICK : FULL) };
  if (opts.rounds !== undefined) {
    if (!Number.isInteger(opts.rounds) || opts.rounds < 1) throw new Error('--rounds needs a whole number ≥ 1');
    S.rounds = opts.rounds;
    S.telemetry = { rounds: opts.rounds };
  }
  const scenarios = new Set(opts.scenarios ?? [1, 2, 3, 4, 5, 6, 7]);
  const filtered = Boolean(opts.paths || opts.scenarios);
  const writeMain = opts.write || (!opts.quick && !filtered);
  const doProfile = opts.profile ?? (!opts.quick && !filtered);
  const t0 = Date.now();

  const nginxBin = opts.nginx ? (fileExists(opts.nginx) ? opts.nginx : null) : findNginx();
  if (!nginxBin) {
    console.error(`nginx was not found (looked on PATH and in /usr/sbin).
The harness uses the distribution's nginx both as the fixed-response upstream and as the
industry-baseline proxy, and installs nothing by itself. Install it with:

    apt-get install nginx        (Debian/Ubuntu; sudo if not root)

then run the benchmark again.`);
    process.exit(2);
  }

  const needFiles = (scenarios.has(4) ? S.fanin.streams * 2 : 0) + 1024;
  const nf = ensureOpenFiles(needFiles);
  if (nf.reexec) return;
  if (!nf.ok) {
    const fit = Math.max(50, Math.floor((nf.lim.soft - 1024) / 2));
    log(
      `warning: open-files limit ${nf.lim.soft} (hard ${nf.lim.hard}) is too low for ${S.fanin.streams} streams; using ${fit}. Raise it with \`ulimit -n ${needFiles}\`.`,
    );
    S.fanin.streams = fit;
  }

  const cli = opts.gatewayCli ?? gatewayCli;
  const meta = machineInfo(nginxBin, cli);
  meta.mode = S.mode;
  log(`a2a-gateway benchmark (${S.mode}) — ${meta.cpuModel}, ${meta.cores} cores, Node ${meta.node}, ${meta.nginx}`);
  log(`load average ${meta.loadAvgAtStart.join(' ')}; other work on this machine shows up as noise.`);

  const runDir = mkdtempSync(path.join(os.tmpdir(), 'a2a-bench-'));
  chmodSync(runDir, 0o755); // nginx workers run as an unprivileged user when started by root
  installCleanup(
    () => rmSync(runDir, { recursive: true, force: true }),
    () => rmSync(runDir, { recursive: true, force: true }),
  );

  const results = { meta, settings: S, paths: [], scenarios: {}, notes: [], profiles: [] };
  let paths = [];
  try {
    // ---- upstreams ------------------------------------------------------------------------
    const ports = { small: await freePort(), task: await freePort(), large: await freePort(), sse: await freePort() };
    const routes = new Map(Object.entries(ports).map(([n, p]) => [n, `http://127.0.0.1:${p}`]));
    const largeFile = path.join(runDir, 'large-task.json');
    if (scenarios.has(5)) writeLargeBody(largeFile, S.large.bytes);
    else writeFileSync(largeFile, '{}');
    const taskFile = path.join(runDir, 'task-10k.json');
    writeFileSync(taskFile, TASK_10K_RESPONSE);
    chmodSync(taskFile, 0o644);
    const upDir = path.join(runDir, 'nginx-upstream');
    mkdirSync(upDir, { recursive: true });
    const upConf = upstreamConfig(upDir, [
      { name: 'small', port: ports.small, card: agentCard(routes.get('small'), 'small'), body: SMALL_MESSAGE_RESPONSE },
      // Too long for an nginx config parameter (4 KB): served as a static file, like the large one.
      { name: 'task', port: ports.task, card: agentCard(routes.get('task'), 'task'), file: taskFile },
      { name: 'large', port: ports.large, card: agentCard(routes.get('large'), 'large'), file: largeFile },
    ]);
    const upstream = await startNginx(
      nginxBin,
      'nginx-upstream',
      upDir,
      upConf,
      `${routes.get('small')}/.well-known/agent-card.json`,
    );
    const sse = startProcess(
      'sse-upstream',
      process.execPath,
      [path.join(benchDir, 'servers', 'sse-upstream.mjs'), '--port', String(ports.sse)],
      { cwd: repoDir },
    );
    await waitForHttp(`${routes.get('sse')}/.well-known/agent-card.json`, { entry: sse });
    const upstreamPids = { nginx: upstream.workerPid, sse: sse.child.pid };
    log(
      `upstreams: nginx (worker ${upstream.workerPid}) on ${ports.small}/${ports.task}/${ports.large}, SSE node (pid ${sse.child.pid}) on ${ports.sse}`,
    );

    // ---- paths ----------------------------------------------------------------------------
    const ctx = { routes, runDir, nginxBin, readyAgent: 'small', otlpSinkUrl: null };
    const all = [directPath(), nginxPath(), nodePath(), ...GATEWAY_VARIANTS.map((v) => gatewayPath(v, { cli }))];
    const named = (p) => opts.paths?.includes(p.name) || opts.with.includes(p.name);
    const optional = (v) => v?.optional === true || (v?.optional === 'quick' && opts.quick);
    const wanted = all.filter((p) => p.name === 'direct' || (opts.paths ? named(p) : !optional(p.variant) || named(p)));
    if (wanted.some((p) => p.variant?.otlpSink)) {
      const port = await freePort();
      const sink = startProcess(
        'otlp-sink',
        process.execPath,
        [path.join(benchDir, 'servers', 'otlp-sink.mjs'), '--port', String(port)],
        { cwd: repoDir },
      );
      ctx.otlpSinkUrl = `http://127.0.0.1:${port}`;
      await waitForHttp(`${ctx.otlpSinkUrl}/stats`, { entry: sink });
    }
    for (const p of wanted) {
      const info = {
        name: p.name,
        label: p.label,
        kind: p.kind,
        available: false,
        reason: null,
        pid: null,
        problems: [],
      };
      results.paths.push(info);
      const av = p.available(ctx);
      if (!av.ok) {
        info.reason = av.reason;
        log(`path ${p.name}: ${av.reason}`);
        continue;
      }
      try {
        await p.start(ctx);
        const v = await verifyPath(p);
        if (v.fatal) throw new Error(`verification failed: ${v.fatal}`);
        if (p.probe) {
          try {
            await p.probe(ctx);
          } catch (err) {
            info.reason = `not available: ${err.message}`;
            log(`path ${p.name}: ${info.reason}`);
            await p.stop();
            continue;
          }
        }
        info.problems = v.problems;
        info.available = true;
        info.pid = p.pid;
        paths.push(p);
        log(
          `path ${p.name}: up${p.pid ? ` (measured pid ${p.pid})` : ''}${v.problems.length ? ` — warning: ${v.problems.join('; ')}` : ''}`,
        );
      } catch (err) {
        info.reason = `failed to start: ${err.message.slice(0, 500)}`;
        log(`path ${p.name}: ${info.reason}`);
        await p.stop().catch(() => {});
      }
    }
    const sc = results.scenarios;
    const record = (key, p, round, value) => {
      sc[key] ??= { byPath: {} };
      const slot = (sc[key].byPath[p.name] ??= { rounds: [] });
      slot.rounds[round] = value;
    };
    const runRounds = async (key, rounds, fn) => {
      for (let r = 0; r < rounds; r++) {
        for (const p of rotated(paths, r)) {
          let v;
          try {
            v = await fn(p, r);
          } catch (err) {
            v = { error: err.message };
          }
          record(key, p, r, v);
          log(`  [${key} r${r + 1}] ${p.name.padEnd(10)} ${describe(key, v)}`);
        }
      }
      for (const slot of Object.values(sc[key]?.byPath ?? {}))
        slot.median = medianOfRounds(slot.rounds.filter((x) => x && !x.error));
    };

    // ---- scenarios 1 and 2: unary ---------------------------------------------------------
    const unary = [
      { n: 1, agent: 'small', label: 'SendMessage → Message (251 B)' },
      { n: 2, agent: 'task', label: `SendMessage → Task with artifacts (${TASK_10K_RESPONSE.length} B)` },
    ];
    const reqBody = sendMessageRequest();
    for (const u of unary) {
      if (!scenarios.has(u.n)) continue;
      log(`scenario ${u.n}: ${u.label}`);
      for (const p of paths)
        await unaryWarmup({ url: `${p.agentUrl(u.agent)}/a2a/jsonrpc`, body: reqBody, durationS: S.warmupS });
      await runRounds(`s${u.n}_throughput`, S.rounds, (p) =>
        unaryThroughput({
          url: `${p.agentUrl(u.agent)}/a2a/jsonrpc`,
          body: reqBody,
          connections: S.unary.connections,
          durationS: S.unary.durationS,
          pid: p.pid,
          upstreamPid: upstreamPids.nginx,
        }),
      );
      await runRounds(`s${u.n}_latency`, S.rounds, (p) =>
        unaryLatency({
          url: `${p.agentUrl(u.agent)}/a2a/jsonrpc`,
          body: reqBody,
          rate: S.unary.latencyRate,
          connections: S.unary.latencyConnections,
          durationS: S.unary.latencyDurationS,
          pid: p.pid,
        }),
      );
    }

    // ---- scenario 7: what telemetry costs, side by side ------------------------------------
    // The gateway with metrics and tracing off and a telemetry variant take load at the same
    // time (half the connections each), so both see the same machine; rounds repeat that.
    if (scenarios.has(7)) {
      const reference = paths.find((p) => p.name === TELEMETRY_REFERENCE);
      const variants = paths.filter((p) => TELEMETRY_VARIANTS.includes(p.name));
      if (!reference || variants.length === 0) {
        log(`scenario 7: needs ${TELEMETRY_REFERENCE} and one of ${TELEMETRY_VARIANTS.join(', ')}; skipped`);
      } else {
        log(`scenario 7: telemetry cost, each variant side by side with ${reference.name}`);
        const sc7 = (results.scenarios.s7_side_by_side = {
          reference: reference.name,
          connections: S.unary.connections / 2,
          durationS: S.unary.durationS,
          byPath: {},
        });
        const url = (p) => `${p.agentUrl('small')}/a2a/jsonrpc`;
        for (const p of [reference, ...variants])
          await unaryWarmup({ url: url(p), body: reqBody, durationS: S.warmupS });
        for (let r = 0; r < S.telemetry.rounds; r++) {
          for (const p of variants) {
            const slot = (sc7.byPath[p.name] ??= { rounds: [] });
            try {
              const pair = [reference, p].map((x) => ({ url: url(x), pid: x.pid }));
              // A variant sits idle while the others are measured; the reference never does.
              // One unmeasured second of the same load first, so both start the round warm.
              await unaryThroughputSideBySide(pair, {
                body: reqBody,
                connections: S.unary.connections / 2,
                durationS: S.warmupS,
              });
              const [ref, v] = await unaryThroughputSideBySide(pair, {
                body: reqBody,
                connections: S.unary.connections / 2,
                durationS: S.unary.durationS,
              });
              const round = {
                rps: v.rps,
                referenceRps: ref.rps,
                rpsRatio: v.rps / ref.rps,
                cpuPer10k: v.cpuPer10k,
                referenceCpuPer10k: ref.cpuPer10k,
                cpuRatio: v.cpuPer10k && ref.cpuPer10k ? v.cpuPer10k / ref.cpuPer10k : null,
                errors: v.errors + ref.errors,
              };
              slot.rounds.push(round);
              log(
                `  [s7 r${r + 1}] ${p.name} ${Math.round(v.rps)} req/s vs ${Math.round(ref.rps)} (${round.rpsRatio.toFixed(3)}×), CPU per request ${round.cpuRatio?.toFixed(3) ?? '—'}×, errors ${round.errors}`,
              );
            } catch (err) {
              slot.rounds.push({ error: err.message });
              log(`  [s7 r${r + 1}] ${p.name} failed: ${err.message}`);
            }
          }
        }
        for (const slot of Object.values(sc7.byPath))
          slot.median = medianOfRounds(slot.rounds.filter((x) => x && !x.error));
      }
    }

    // ---- scenario 3: one long stream ------------------------------------------------------
    if (scenarios.has(3)) {
      log(`scenario 3: SSE, one stream of ${S.sse.burstEvents} events (${S.sse.eventBytes} B each)`);
      for (const p of paths)
        await sseBurst({
          url: `${p.agentUrl('sse')}/a2a/jsonrpc`,
          events: Math.min(2000, S.sse.burstEvents),
          eventBytes: S.sse.eventBytes,
        });
      await runRounds('s3_burst', S.sse.rounds, (p) =>
        sseBurst({
          url: `${p.agentUrl('sse')}/a2a/jsonrpc`,
          events: S.sse.burstEvents,
          eventBytes: S.sse.eventBytes,
          pid: p.pid,
        }),
      );
      await runRounds('s3_paced', S.rounds, (p) =>
        ssePaced({
          url: `${p.agentUrl('sse')}/a2a/jsonrpc`,
          events: S.sse.pacedEvents,
          eventBytes: S.sse.eventBytes,
          rate: S.sse.pacedRate,
        }),
      );
    }

    // RSS scenarios start from fresh processes, so what earlier scenarios left in a heap does
    // not hide (or inflate) what these ones cost.
    const restartProxies = async (why) => {
      log(`restarting the proxies (${why})`);
      for (const p of paths.slice()) {
        if (p.kind === 'direct') continue;
        try {
          await p.stop();
          await p.start(ctx);
          const v = await verifyPath(p);
          if (v.fatal) throw new Error(v.fatal);
        } catch (err) {
          results.notes.push(`${p.name} could not be restarted before ${why}: ${err.message}`);
          paths.splice(paths.indexOf(p), 1);
          await p.stop().catch(() => {});
        }
      }
    };

    // ---- scenario 4: fan-in ---------------------------------------------------------------
    if (scenarios.has(4)) {
      await restartProxies('scenario 4');
      log(`scenario 4: SSE fan-in, ${S.fanin.streams} open streams, an event every ${S.fanin.intervalMs} ms`);
      await runRounds('s4_fanin', S.fanin.rounds, (p) =>
        sseFanIn({
          url: `${p.agentUrl('sse')}/a2a/jsonrpc`,
          streams: S.fanin.streams,
          intervalMs: S.fanin.intervalMs,
          eventsPerStream: S.fanin.eventsPerStream,
          eventBytes: S.fanin.eventBytes,
          pid: p.pid,
        }),
      );
    }

    // ---- scenario 5: large bodies ---------------------------------------------------------
    if (scenarios.has(5)) {
      await restartProxies('scenario 5');
      log(`scenario 5: large bodies, ${fmt(S.large.bytes / 1e6, 0)} MB`);
      await runRounds('s5_unary', S.large.rounds, (p) =>
        largeUnary({
          url: `${p.agentUrl('large')}/a2a/jsonrpc`,
          body: reqBody,
          expectedBytes: S.large.bytes,
          pid: p.pid,
        }),
      );
      await runRounds('s5_sse', S.large.rounds, (p) =>
        largeSse({
          url: `${p.agentUrl('sse')}/a2a/jsonrpc`,
          totalBytes: S.large.bytes,
          eventBytes: S.large.sseEventBytes,
          pid: p.pid,
        }),
      );
    }

    // ---- scenario 6: timeout-rescue timing (its own SDK agent and gateway) -------------------
    if (scenarios.has(6)) {
      log('scenario 6: timeout rescue, task settled → client answered, per strategy');
      try {
        results.scenarios.s6 = await measureRescueTiming({
          repoDir,
          gatewayCli: cli,
          runDir,
          sends: S.rescue.sends,
          taskMs: S.rescue.taskMs,
          pollInitialMs: S.rescue.pollInitialMs,
          pollMaxMs: S.rescue.pollMaxMs,
          concurrency: S.rescue.concurrency,
        });
        log(`  ${JSON.stringify(results.scenarios.s6.strategies)}`);
      } catch (err) {
        results.scenarios.s6 = { error: err.message };
        log(`  scenario 6 failed: ${err.message}`);
      }
    }

    // ---- profile pass: each gateway variant again, under --cpu-prof -------------------------
    if (doProfile) {
      const profileDir = path.join(opts.out, 'profiles');
      for (const gp of paths.filter((p) => p.kind === 'gateway')) {
        const pp = gatewayPath(gp.variant, { profileDir, cli });
        const since = Date.now();
        log(`profiling ${gp.name}: unary and SSE load under node --cpu-prof`);
        try {
          await pp.start(ctx);
          const d = S.profile.durationS;
          for (const u of unary) {
            if (!scenarios.has(u.n)) continue;
            await unaryThroughput({
              url: `${pp.agentUrl(u.agent)}/a2a/jsonrpc`,
              body: reqBody,
              connections: S.unary.connections,
              durationS: d,
            });
          }
          if (scenarios.has(3)) {
            for (let i = 0; i < 3; i++)
              await sseBurst({
                url: `${pp.agentUrl('sse')}/a2a/jsonrpc`,
                events: S.sse.burstEvents,
                eventBytes: S.sse.eventBytes,
              });
          }
        } catch (err) {
          results.notes.push(`profile run of ${gp.name} failed: ${err.message}`);
        }
        await pp.stop();
        await sleep(200);
        // One file per thread: CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile, thread 0 the
        // main thread; a traced gateway also writes its span export thread's.
        const threadOf = (f) => Number(path.basename(f).split('.')[4]);
        const files = readdirSync(profileDir)
          .filter((f) => f.endsWith('.cpuprofile'))
          .map((f) => path.join(profileDir, f))
          .filter((f) => statSync(f).mtimeMs >= since)
          .sort((a, b) => threadOf(a) - threadOf(b));
        if (files.length === 0) {
          results.notes.push(`no .cpuprofile was written for ${gp.name} (did the gateway exit on SIGTERM?)`);
          continue;
        }
        for (const file of files) {
          const s = summariseProfile(file, { top: 20 });
          const name = threadOf(file) === 0 ? gp.name : `${gp.name}, worker thread ${threadOf(file)} (span export)`;
          results.profiles.push({ path: name, file: path.relative(repoDir, file), summary: s });
          log(formatSummary(s));
        }
      }
    }
    if (ctx.otlpSinkUrl) {
      try {
        results.meta.otlpSink = JSON.parse((await httpRequest(`${ctx.otlpSinkUrl}/stats`)).body);
      } catch {
        /* sink gone */
      }
    }
  } finally {
    for (const p of paths.slice().reverse()) await p.stop().catch(() => {});
    paths = [];
    await stopAll();
  }

  // ---- results ----------------------------------------------------------------------------
  results.meta.wallSeconds = Math.round((Date.now() - t0) / 1000);
  results.targets = evaluateTargets(results);
  const md = renderMarkdown(results);
  mkdirSync(opts.out, { recursive: true });
  const outs = [path.join(opts.out, 'RESULTS.md'), path.join(opts.out, 'results.json')];
  if (writeMain) outs.push(path.join(benchDir, 'RESULTS.md'), path.join(benchDir, 'results.json'));
  for (const f of outs) writeFileSync(f, f.endsWith('.md') ? md : `${JSON.stringify(results, null, 2)}\n`);
  log('');
  const measured = new Set(results.paths.filter((p) => p.available).map((p) => p.name));
  for (const t of results.targets.filter(
    (x) => x.primary && measured.has(x.path) && x.valueText !== 'scenario not run',
  ))
    log(
      `target ${t.met === true ? 'met   ' : t.met === false ? 'MISSED' : 'n/a   '} ${t.path}: ${t.text} — ${t.valueText}`,
    );
  log(`\nwrote ${outs.map((f) => path.relative(process.cwd(), f)).join(', ')} in ${results.meta.wallSeconds} s`);
  rmSync(runDir, { recursive: true, force: true });
}

/** One console line per measurement. */
function describe(key, v) {
  if (!v) return '—';
  if (v.error && v.rps === undefined && v.events === undefined) return `error: ${v.error}`;
  if (key.endsWith('_throughput'))
    return `${fmt(v.rps, 0)} req/s, p50 ${v.p50ms} ms, cpu/10k ${fmt(v.cpuPer10k, 2)} s, errors ${v.errors + v.non2xx}`;
  if (key.endsWith('_latency'))
    return `@${v.rate}/s: p50 ${fmt(v.p50ms, 3)} ms, p99 ${fmt(v.p99ms, 3)} ms (${v.samples} samples, errors ${v.errors + v.non2xx})`;
  if (key === 's3_burst')
    return `${fmt(v.eventsPerSec, 0)} events/s, ${v.events} events${v.complete ? '' : ' INCOMPLETE'}`;
  if (key === 's3_paced')
    return `@${v.rate}/s: delay p50 ${fmt(v.delayP50ms, 3)} ms, p99 ${fmt(v.delayP99ms, 3)} ms${v.complete ? '' : ' INCOMPLETE'}`;
  if (key === 's4_fanin')
    return `${v.opened}/${v.streams} open, ${v.events}/${v.expectedEvents} events, delay p50 ${fmt(v.delayP50ms, 2)} p99 ${fmt(v.delayP99ms, 2)} ms, RSS ${fmt(v.rssBaselineMB)} → ${fmt(v.rssPeakMB)} MB`;
  if (key.startsWith('s5_'))
    return `${fmt(v.mbps, 0)} MB/s in ${fmt(v.seconds, 2)} s${v.complete ? '' : ` INCOMPLETE (${v.error ?? ''})`}, RSS ${fmt(v.rssBaselineMB)} → ${fmt(v.rssPeakMB)} MB`;
  return JSON.stringify(v);
}

main().catch(async (err) => {
  console.error(err?.stack ?? err);
  await stopAll();
  process.exit(1);
});
