// Soak: the built gateway under a bounded mixed load for N minutes, its RSS and open descriptors
// sampled throughout. Writes bench/soak.json and the "## Soak" section of bench/RESULTS.md.
//
//   npm run soak                      2 minutes (builds first)
//   npm run soak -- --minutes 10
//   node bench/soak.mjs --help
//
// Loopback only; every loop is bounded in time and count; the processes it starts (nginx, the
// SSE upstream, the gateway) are stopped by pid at the end, on error and on Ctrl-C; its temporary
// directory is removed.
import { mkdtempSync, chmodSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { installCleanup, stopAll, readMem, httpRequest, openFds } from './lib/procs.mjs';
import { findNginx } from './lib/nginx.mjs';
import { gatewayCli } from './lib/paths.mjs';
import { ensureOpenFiles, machineInfo } from './lib/machine.mjs';
import { startUpstreams } from './lib/setup.mjs';
import { startGateway } from './lib/gateway-child.mjs';
import { SMALL_MESSAGE_RESPONSE, TASK_10K_RESPONSE, sendMessageRequest } from './lib/payloads.mjs';
import { openStream } from './lib/sse-client.mjs';
import { post, stalledUpload, oversizedUpload, pathEscape, abortedUpload, abortedStream } from './lib/raw-clients.mjs';
import { median } from './lib/stats.mjs';
import { SOAK_JSON, rewriteSections } from './lib/sections.mjs';

const USAGE = `usage: node bench/soak.mjs [--minutes N] [--concurrency N] [--no-write]
  --minutes N       how long the load runs (default 2, at most 120)
  --concurrency N   clients at once (default 16)
  --no-write        print the figures, leave bench/soak.json and RESULTS.md alone`;

function options() {
  try {
    const { values } = parseArgs({
      options: {
        minutes: { type: 'string', default: '2' },
        concurrency: { type: 'string', default: '16' },
        'no-write': { type: 'boolean', default: false },
        help: { type: 'boolean', default: false },
      },
    });
    if (values.help) {
      console.log(USAGE);
      process.exit(0);
    }
    const minutes = Number(values.minutes);
    const concurrency = Number(values.concurrency);
    if (!(minutes > 0 && minutes <= 120) || !(concurrency >= 1 && concurrency <= 256)) throw new Error('bad value');
    return { minutes, concurrency, write: !values['no-write'] };
  } catch (err) {
    console.error(`${err.message}\n${USAGE}`);
    process.exit(2);
  }
}

/** The kinds of request, with their weights. Each returns {ok, checked, mismatch, error}. */
function kinds(gw, sseBench) {
  const port = Number(new URL(gw.url).port);
  const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const unary = (agent, expected) => async () => {
    const r = await post(`${gw.agentUrl(agent)}/a2a/jsonrpc`, sendMessageRequest(), { agent: keepAlive });
    const same = r.body.equals(Buffer.from(expected));
    return { ok: r.status === 200 && same, checked: true, mismatch: r.status === 200 && !same, error: r.error };
  };
  const expect = (want, run) => async () => {
    const r = await run();
    return { ok: want.includes(r.status), error: r.error ?? `HTTP ${r.status}` };
  };
  return [
    { kind: 'unary 251 B', weight: 40, run: unary('small', SMALL_MESSAGE_RESPONSE) },
    { kind: 'unary 10 KB', weight: 15, run: unary('task', TASK_10K_RESPONSE) },
    {
      kind: 'SSE stream',
      weight: 15,
      async run() {
        const s = await openStream(`${gw.agentUrl('sse')}/a2a/jsonrpc`, sseBench, {
          timeoutMs: 20_000,
          collect: false,
        });
        return { ok: s.status === 200 && s.events === sseBench.events, error: s.error ?? `${s.events} events` };
      },
    },
    {
      kind: 'SSE aborted by client',
      weight: 6,
      run: expect([200], () =>
        abortedStream(`${gw.agentUrl('sse')}/a2a/jsonrpc`, {
          events: 20,
          eventBytes: 300,
          mode: 'interval',
          intervalMs: 100,
        }),
      ),
    },
    {
      kind: 'upload aborted',
      weight: 6,
      run: expect([0, 400, 408], () => abortedUpload(port, '/agents/small/a2a/jsonrpc').result),
    },
    {
      kind: 'oversized body',
      weight: 6,
      run: expect([413], () => oversizedUpload(port, '/agents/small/a2a/jsonrpc').result),
    },
    {
      // Held open in the background (at most 64 at once), so the other clients keep going.
      kind: 'stalled upload (5 s)',
      weight: 6,
      background: 64,
      run: expect([0], () => stalledUpload(port, '/agents/small/a2a/jsonrpc', { holdMs: 5000 }).result),
    },
    { kind: 'path escape', weight: 6, run: expect([400], () => pathEscape(port, 'small').result) },
  ];
}

/** A small seeded PRNG (mulberry32), so two soaks send the same mix. */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function drive(gw, { seconds, concurrency }, tally) {
  const sseBench = { events: 20, eventBytes: 400, mode: 'burst' };
  const mix = kinds(gw, sseBench);
  const total = mix.reduce((a, k) => a + k.weight, 0);
  const rnd = prng(0x50a6);
  const pick = () => {
    let r = rnd() * total;
    for (const k of mix) if ((r -= k.weight) < 0) return k;
    return mix[0];
  };
  const deadline = Date.now() + seconds * 1000;
  const maxRequests = seconds * 5000; // a count bound besides the time bound
  let sent = 0;
  const record = (k, r) => {
    tally.requests[k.kind] = (tally.requests[k.kind] ?? 0) + 1;
    if (r.checked) tally.checked++;
    if (r.mismatch) tally.mismatches++;
    if (!r.ok) {
      tally.unexpected++;
      const key = `${k.kind}: ${String(r.error).slice(0, 60)}`;
      tally.errors[key] = (tally.errors[key] ?? 0) + 1;
    }
  };
  const run = (k) => k.run().catch((err) => ({ ok: false, error: err.message }));
  const held = new Map(mix.map((k) => [k, new Set()]));
  const worker = async () => {
    while (Date.now() < deadline && sent < maxRequests && !gw.exited) {
      sent++;
      let k = pick();
      if (k.background) {
        const set = held.get(k);
        if (set.size < k.background) {
          const p = run(k).then((r) => {
            record(k, r);
            set.delete(p);
          });
          set.add(p);
          continue;
        }
        k = mix[0]; // as many held as allowed: a unary request instead
      }
      record(k, await run(k));
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  for (const set of held.values()) await Promise.all(set); // each ends within its hold time
}

/** Median of the samples in quarter `q` (1–4) of the run, by time. */
function quarterMedian(samples, key, q) {
  const t0 = samples[0].t;
  const span = samples[samples.length - 1].t - t0 || 1;
  return median(samples.filter((s) => Math.min(3, Math.floor(((s.t - t0) / span) * 4)) === q - 1).map((s) => s[key]));
}

/** Least-squares slope of `key` per minute over the second half of the samples. */
function slopePerMinute(samples, key) {
  const half = samples.slice(Math.floor(samples.length / 2));
  if (half.length < 2) return null;
  const xs = half.map((s) => s.t / 60_000);
  const ys = half.map((s) => s[key]);
  const mx = xs.reduce((a, b) => a + b, 0) / xs.length;
  const my = ys.reduce((a, b) => a + b, 0) / ys.length;
  let num = 0;
  let den = 0;
  for (let i = 0; i < xs.length; i++) {
    num += (xs[i] - mx) * (ys[i] - my);
    den += (xs[i] - mx) ** 2;
  }
  return den ? num / den : null;
}

const FD_TOLERANCE = 32;

function figures(samples, key, tolerance) {
  const values = samples.map((s) => s[key]);
  const q2 = quarterMedian(samples, key, 2);
  const q4 = quarterMedian(samples, key, 4);
  const flat = q2 !== null && q4 !== null && (q4 <= q2 * 1.1 || q4 - q2 <= tolerance);
  return { first: values[0], max: Math.max(...values), last: values[values.length - 1], q2, q4, flat };
}

async function main() {
  const opts = options();
  const nginxBin = findNginx();
  if (!nginxBin) {
    console.error('nginx was not found: the soak uses it as the fixed-answer upstream (apt-get install nginx).');
    process.exit(2);
  }
  const nf = ensureOpenFiles(4096, console.log);
  if (nf.reexec) return;
  const runDir = mkdtempSync(path.join(os.tmpdir(), 'a2a-soak-'));
  chmodSync(runDir, 0o755);
  const remove = () => rmSync(runDir, { recursive: true, force: true });
  installCleanup(remove, remove);
  const log = (...a) => console.log(...a);
  const ctx = { runDir, nginxBin, log, readyAgent: 'small' };
  const tally = { requests: {}, errors: {}, unexpected: 0, checked: 0, mismatches: 0 };
  const samples = [];
  const seconds = opts.minutes * 60;
  const sampleMs = Math.min(5000, Math.max(1000, (seconds * 1000) / 60));
  let gw;
  let healthz = 'not asked';
  let exitedEarly = true;
  const t0 = Date.now();
  try {
    await startUpstreams(ctx, { largeBytes: 0 });
    const agents = Object.fromEntries([...ctx.routes].map(([name, url]) => [name, { url }]));
    gw = await startGateway({ runDir, agents });
    await httpRequest(`${gw.url}/readyz`).catch(() => {});
    log(`gateway pid ${gw.pid} on ${gw.url}; soaking for ${opts.minutes} min, ${opts.concurrency} clients`);
    const sampler = setInterval(() => {
      const m = readMem(gw.pid);
      const fds = openFds(gw.pid);
      if (!m || fds === null) return;
      const n = Object.values(tally.requests).reduce((a, b) => a + b, 0);
      samples.push({ t: Date.now() - t0, rssKB: m.rssKB, fds, requests: n });
      if (samples.length % Math.max(1, Math.round(30_000 / sampleMs)) === 0)
        log(
          `  ${Math.round((Date.now() - t0) / 1000)} s: RSS ${(m.rssKB / 1024).toFixed(1)} MB, ${fds} fds, ${n} requests`,
        );
    }, sampleMs);
    try {
      await drive(gw, { seconds, concurrency: opts.concurrency }, tally);
    } finally {
      clearInterval(sampler);
    }
    const h = await httpRequest(`${gw.url}/healthz`, { timeoutMs: 5000 }).catch((e) => ({ status: e.message }));
    healthz = h.status === 200 ? 'HTTP 200' : String(h.status);
    exitedEarly = gw.exited;
  } finally {
    await gw?.stop().catch(() => {});
    await stopAll();
  }
  if (samples.length < 4) throw new Error(`only ${samples.length} samples: the gateway went away`);
  const rss = { ...figures(samples, 'rssKB', 0), slopeMBPerMin: slopePerMinute(samples, 'rssKB') / 1024 };
  const fds = { ...figures(samples, 'fds', FD_TOLERANCE), slopePerMin: slopePerMinute(samples, 'fds') };
  const meta = machineInfo(nginxBin, gatewayCli);
  const result = {
    date: meta.date,
    minutes: opts.minutes,
    seconds: (Date.now() - t0) / 1000,
    gatewayBuild: meta.gatewayBuild,
    machine: `${meta.cpuModel}, ${meta.cores} cores, Node ${meta.node}`,
    concurrency: opts.concurrency,
    sampleSeconds: sampleMs / 1000,
    total: Object.values(tally.requests).reduce((a, b) => a + b, 0),
    ...tally,
    up: healthz === 'HTTP 200' && !exitedEarly,
    healthz,
    rss,
    fds,
    fdTolerance: FD_TOLERANCE,
    flat: rss.flat && fds.flat,
    samples,
  };
  log(
    `\n${result.total} requests in ${result.seconds.toFixed(0)} s; unexpected ${result.unexpected}, ` +
      `mismatches ${result.mismatches}/${result.checked}; gateway up: ${result.up}`,
  );
  log(
    `RSS MB first ${(rss.first / 1024).toFixed(1)} max ${(rss.max / 1024).toFixed(1)} last ${(rss.last / 1024).toFixed(1)}`,
  );
  log(`fds first ${fds.first} max ${fds.max} last ${fds.last}; verdict: ${result.flat ? 'flat' : 'NOT flat'}`);
  for (const [k, n] of Object.entries(tally.errors)) log(`  unexpected: ${k} × ${n}`);
  if (opts.write) {
    writeFileSync(SOAK_JSON, `${JSON.stringify(result, null, 2)}\n`);
    rewriteSections();
    log('wrote bench/soak.json and the Soak section of bench/RESULTS.md');
  }
  remove();
  if (!result.up || result.mismatches) process.exitCode = 1;
}

main().catch(async (err) => {
  console.error(err?.stack ?? err);
  await stopAll();
  process.exit(1);
});
