// Hostile loads (issue #12, "Done when"): each of five loads against a freshly started gateway
// with default limits, while another client probes a second agent with unary requests. Records
// whether every probe was answered (and how fast) and the gateway's peak RSS against the 400 MB
// target. Writes bench/hostile.json and the "## Hostile loads" section of bench/RESULTS.md.
//
//   npm run hostile                    all five (builds first)
//   npm run hostile -- --only a,c      some of them
//   node bench/hostile.mjs --help
//
// Loopback only. Each load is bounded in count and time; a gateway whose RSS passes a safety
// cap (4 GB) is killed and the load reported as missed. Everything started is stopped by pid at
// the end, on error and on Ctrl-C; the temporary directory is removed.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { installCleanup, stopAll, readMem, startProcess, freePort, waitForHttp, stopProcess } from './lib/procs.mjs';
import { benchDir, gatewayCli, repoDir } from './lib/paths.mjs';
import { ensureOpenFiles, machineInfo } from './lib/machine.mjs';
import { startGateway } from './lib/gateway-child.mjs';
import { A2A_HEADERS, SMALL_MESSAGE_RESPONSE, sendMessageRequest } from './lib/payloads.mjs';
import { openStream, readUnary } from './lib/sse-client.mjs';
import { post, stalledUpload } from './lib/raw-clients.mjs';
import { summary } from './lib/stats.mjs';
import { HOSTILE_JSON, rewriteSections } from './lib/sections.mjs';

const USAGE = `usage: node bench/hostile.mjs [--only a,b,c,d,e] [--hold SECONDS] [--no-write]
  --only LIST     which loads (default all):
                    a  3,000 stalled uploads
                    b  1,000 concurrent SSE streams to one agent
                    c  an agent serving a 1 GB card
                    d  a 1 GB non-SSE answer on the timeout rescue's stream path
                    e  250 SSE streams each sending a 1 MB event with no terminating blank line
  --hold SECONDS  how long each load is held while probing (default 20, at most 120)
  --no-write      print the figures, leave bench/hostile.json and RESULTS.md alone`;

const TARGET_MB = 400;
const SAFETY_KB = 4 * 1024 * 1024;
const PROBE_EVERY_MS = 250;
const PROBE_TIMEOUT_MS = 5000;
const log = (...a) => console.log(...a);

function options() {
  try {
    const { values } = parseArgs({
      options: {
        only: { type: 'string' },
        hold: { type: 'string', default: '20' },
        'no-write': { type: 'boolean', default: false },
        help: { type: 'boolean', default: false },
      },
    });
    if (values.help) {
      console.log(USAGE);
      process.exit(0);
    }
    const only = values.only ? values.only.split(',').map((s) => s.trim()) : ['a', 'b', 'c', 'd', 'e'];
    const hold = Number(values.hold);
    if (only.some((id) => !'abcde'.includes(id) || id.length !== 1) || !(hold >= 2 && hold <= 120))
      throw new Error('bad value');
    return { only, hold, write: !values['no-write'] };
  } catch (err) {
    console.error(`${err.message}\n${USAGE}`);
    process.exit(2);
  }
}

/** `n` tasks started `batch` at a time, each batch awaited (connects are bounded, not a storm). */
async function inBatches(n, batch, start) {
  const all = [];
  for (let i = 0; i < n; i += batch) {
    const group = [];
    for (let j = i; j < Math.min(n, i + batch); j++) group.push(start(j));
    all.push(...group);
    await Promise.all(group.map((g) => g.opened));
  }
  return all;
}

/**
 * `n` SSE streams to `url`, opened `batch` at a time (each batch waits until its streams are
 * open, or ended); `counter.open` counts the ones open so far. `all` settles when every stream has.
 */
async function openStreams(n, batch, url, bench, opts, counter) {
  const streams = await inBatches(n, batch, () => {
    let opened;
    const p = new Promise((r) => (opened = r));
    const onOpen = () => {
      counter.open++;
      opened();
    };
    const s = openStream(url, bench, { ...opts, collect: false, onOpen });
    s.then(() => opened());
    return { result: s, opened: p };
  });
  return { all: Promise.all(streams.map((s) => s.result)) };
}

/**
 * The loads. Each `start(gw, hold)` returns {engaged(): string, done: Promise, release()}:
 * what is on right now, the end of the load (bounded), and a way to end it early.
 */
const LOADS = {
  a: {
    title: '3,000 stalled uploads',
    agents: (u) => ({ sink: { url: `${u.load}/sink` } }),
    async start(gw, hold) {
      const port = Number(new URL(gw.url).port);
      let connected = 0;
      const uploads = await inBatches(3000, 200, () => {
        let opened;
        const p = new Promise((r) => (opened = r));
        const u = stalledUpload(port, '/agents/sink/a2a/jsonrpc', {
          contentLength: 10 * 1024 * 1024,
          holdMs: (hold + 20) * 1000,
          onConnect: () => {
            connected++;
            opened();
          },
        });
        u.result.then(() => opened());
        return { ...u, opened: p };
      });
      const results = Promise.all(uploads.map((u) => u.result));
      return {
        engaged: () => `${connected}/3000 connected, each 200 B of a declared 10 MiB body sent`,
        done: results.then((rs) => {
          const early = rs.filter((r) => r.status !== 0).length;
          return early ? `${early} answered before release` : 'none answered before release (bodyIdle is 30 s)';
        }),
        release: () => uploads.forEach((u) => u.release()),
      };
    },
  },
  b: {
    title: '1,000 concurrent SSE streams to one agent',
    agents: (u) => ({ sse: { url: u.sse } }),
    async start(gw, hold) {
      const counter = { open: 0 };
      const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
      const events = Math.max(3, hold - 3); // ends within the hold: complete streams are counted
      const bench = { events, eventBytes: 300, mode: 'interval', intervalMs: 1000 };
      const url = `${gw.agentUrl('sse')}/a2a/jsonrpc`;
      const { all } = await openStreams(1000, 100, url, bench, { agent, timeoutMs: (hold + 30) * 1000 }, counter);
      return {
        engaged: () => `${counter.open}/1000 streams open, an event a second on each`,
        done: all.then((rs) => {
          agent.destroy();
          const whole = rs.filter((r) => r.status === 200 && r.events === events).length;
          return `${whole}/1000 streams complete`;
        }),
        release: () => agent.destroy(),
      };
    },
  },
  c: {
    title: 'an agent serving a 1 GB card',
    agents: (u) => ({ bigcard: { url: `${u.load}/bigcard` } }),
    async start(gw, hold) {
      // The gateway fetches the card itself at start-up (and retries); two clients ask for it too.
      const url = `${gw.agentUrl('bigcard')}/.well-known/agent-card.json`;
      const reads = [0, 1].map(() => getCounting(url, (hold + 10) * 1000));
      return {
        engaged: () =>
          'the gateway fetches the card at start-up (and again every cards.retry, 5 s, while it fails); 2 clients ask for it',
        done: Promise.all(reads).then(
          (rs) =>
            `clients got: ${rs.map((r) => (r.status ? `HTTP ${r.status} ${mbText(r.bytes)}` : 'no answer before release')).join(', ')}`,
        ),
        release: () => reads.forEach((r) => r.cancel()),
      };
    },
  },
  d: {
    title: "a 1 GB non-SSE answer on the rescue's stream path",
    agents: (u) => ({ rescue: { url: `${u.load}/bigjson`, timeoutRescue: { enabled: true, strategy: 'stream' } } }),
    async start(gw, hold) {
      const read = readUnary(`${gw.agentUrl('rescue')}/a2a/jsonrpc`, sendMessageRequest(), A2A_HEADERS, {
        timeoutMs: (hold + 30) * 1000,
      });
      return {
        engaged: () => 'one blocking SendMessage; the agent answers the stream request with 1 GB of JSON',
        done: read.then(
          (r) =>
            `client got HTTP ${r.status}, ${mbText(r.bytes)} in ${(r.ms / 1000).toFixed(1)} s${r.error ? ` (${r.error})` : ''}`,
        ),
        release: () => {},
      };
    },
  },
  e: {
    title: '250 streams with 1 MB unterminated events',
    agents: (u) => ({ unterminated: { url: `${u.load}/unterminated` } }),
    async start(gw, hold) {
      const counter = { open: 0 };
      const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
      const url = `${gw.agentUrl('unterminated')}/a2a/jsonrpc`;
      const { all } = await openStreams(250, 50, url, {}, { agent, timeoutMs: (hold + 10) * 1000 }, counter);
      return {
        engaged: () => `${counter.open}/250 streams open`,
        done: all.then(
          (rs) =>
            `clients got ${mbText(rs.reduce((a, r) => a + r.bytes, 0))} in all, ${rs.reduce((a, r) => a + r.events, 0)} whole events`,
        ),
        release: () => agent.destroy(),
      };
    },
  },
};

const mbText = (bytes) => `${(bytes / 1e6).toFixed(1)} MB`;

/** GET counting bytes; resolves {status, bytes}; `cancel()` hangs up. */
function getCounting(url, timeoutMs) {
  let req;
  const p = new Promise((resolve) => {
    const out = { status: 0, bytes: 0 };
    const timer = setTimeout(() => req.destroy(), timeoutMs);
    const finish = () => {
      clearTimeout(timer);
      resolve(out);
    };
    req = http.get(url, { agent: false, headers: { 'a2a-version': '1.0' } }, (res) => {
      out.status = res.statusCode;
      res.on('data', (c) => (out.bytes += c.length));
      res.on('end', finish);
      res.on('error', finish);
      res.on('close', finish);
    });
    req.on('error', finish);
  });
  p.cancel = () => req?.destroy();
  return p;
}

/** VmRSS every 100 ms and VmHWM (the peak over the gateway's life) at the end; kills past 4 GB. */
function watch(gw) {
  let maxKB = 0;
  let hwmKB = 0;
  let killed = false;
  const timer = setInterval(() => {
    const m = readMem(gw.pid);
    if (!m) return;
    maxKB = Math.max(maxKB, m.rssKB);
    hwmKB = Math.max(hwmKB, m.hwmKB);
    if (m.rssKB > SAFETY_KB && !killed) {
      killed = true;
      log(`  RSS ${(m.rssKB / 1024).toFixed(0)} MB passed the 4 GB safety cap: killing the gateway`);
      stopProcess(gw.entry, { signal: 'SIGKILL' });
    }
  }, 100);
  return {
    stop() {
      clearInterval(timer);
      const m = readMem(gw.pid);
      if (m) hwmKB = Math.max(hwmKB, m.hwmKB);
      return { peakKB: Math.max(maxKB, hwmKB), killed };
    },
  };
}

/** Unary probes to the probe agent, one after another on new connections, until `until()`. */
async function probe(gw, until) {
  const url = `${gw.agentUrl('probe')}/a2a/jsonrpc`;
  const latencies = [];
  let sent = 0;
  let failed = 0;
  const errors = new Set();
  while (!until()) {
    sent++;
    const r = await post(url, sendMessageRequest(), { timeoutMs: PROBE_TIMEOUT_MS });
    if (r.status === 200 && r.body.toString('utf8') === SMALL_MESSAGE_RESPONSE) latencies.push(r.ms);
    else {
      failed++;
      errors.add(r.error ?? `HTTP ${r.status}`);
    }
    await sleep(PROBE_EVERY_MS);
  }
  const s = summary(latencies);
  return { sent, answered: latencies.length, failed, p50Ms: s.p50, maxMs: s.max, errors: [...errors].slice(0, 3) };
}

async function runLoad(id, load, ctx) {
  log(`\n(${id}) ${load.title}`);
  const agents = { probe: { url: `${ctx.upstreams.probe}/probe` }, ...load.agents(ctx.upstreams) };
  const gw = await startGateway({ runDir: ctx.runDir, name: `gateway-${id}`, agents });
  const out = { id, title: load.title };
  try {
    const first = await post(`${gw.agentUrl('probe')}/a2a/jsonrpc`, sendMessageRequest(), { timeoutMs: 10_000 });
    if (first.status !== 200) throw new Error(`the probe agent does not answer before the load: HTTP ${first.status}`);
    const baseline = readMem(gw.pid);
    const watcher = watch(gw);
    const startedAt = Date.now();
    let loadOn = true;
    const probes = probe(gw, () => !loadOn || Date.now() - startedAt > (ctx.hold + 60) * 1000);
    const running = await load.start(gw, ctx.hold);
    out.engaged = running.engaged();
    log(`  engaged: ${out.engaged} (${((Date.now() - startedAt) / 1000).toFixed(1)} s)`);
    const held = Promise.race([running.done, sleep(ctx.hold * 1000)]);
    await held;
    loadOn = false;
    out.probes = await probes;
    running.release();
    out.outcome = await Promise.race([running.done, sleep(30_000).then(() => 'did not end within 30 s of release')]);
    const w = watcher.stop();
    out.rss = { baselineKB: baseline?.rssKB ?? null, peakKB: w.peakKB };
    out.up = !gw.exited;
    out.killed = w.killed;
  } catch (err) {
    out.error = err.message;
  } finally {
    await gw.stop().catch(() => {});
  }
  const under = out.rss && out.rss.peakKB < TARGET_MB * 1024;
  const allAnswered = out.probes && out.probes.sent > 0 && out.probes.answered === out.probes.sent;
  out.met = Boolean(under && allAnswered && out.up && !out.killed && !out.error);
  const notes = [out.outcome, out.error && `error: ${out.error}`, out.killed && 'killed at the 4 GB safety cap'];
  if (out.probes?.errors.length) notes.push(`probe errors: ${out.probes.errors.join('; ')}`);
  if (out.up === false && !out.killed) notes.push('gateway exited');
  out.note = notes.filter(Boolean).join('; ');
  const p = out.probes;
  log(
    `  probes ${p ? `${p.answered}/${p.sent} answered, p50 ${p.p50Ms?.toFixed(1)} ms, max ${p.maxMs?.toFixed(1)} ms` : '—'}; ` +
      `peak RSS ${out.rss ? (out.rss.peakKB / 1024).toFixed(0) : '—'} MB; ${out.met ? 'met' : 'MISSED'}; ${out.note}`,
  );
  return out;
}

function startChild(name, script, port, extra = []) {
  return startProcess(
    name,
    process.execPath,
    [path.join(benchDir, 'servers', script), '--port', String(port), ...extra],
    {
      cwd: repoDir,
    },
  );
}

async function main() {
  const opts = options();
  const nf = ensureOpenFiles(12_000, log);
  if (nf.reexec) return;
  if (!nf.ok) log(`warning: open-files limit ${nf.lim.soft} is below 12,000: load (a) will hit it`);
  const runDir = mkdtempSync(path.join(os.tmpdir(), 'a2a-hostile-'));
  const remove = () => rmSync(runDir, { recursive: true, force: true });
  installCleanup(remove, remove);
  const t0 = Date.now();
  const loads = [];
  try {
    const ports = { probe: await freePort(), load: await freePort(), sse: await freePort() };
    const upstreams = Object.fromEntries(Object.entries(ports).map(([n, p]) => [n, `http://127.0.0.1:${p}`]));
    const children = [
      startChild('probe-upstream', 'hostile-upstream.mjs', ports.probe),
      startChild('hostile-upstream', 'hostile-upstream.mjs', ports.load),
      startChild('sse-upstream', 'sse-upstream.mjs', ports.sse),
    ];
    await waitForHttp(`${upstreams.probe}/probe/.well-known/agent-card.json`, { entry: children[0] });
    await waitForHttp(`${upstreams.load}/sink/.well-known/agent-card.json`, { entry: children[1] });
    await waitForHttp(`${upstreams.sse}/.well-known/agent-card.json`, { entry: children[2] });
    const ctx = { runDir, upstreams, hold: opts.hold };
    for (const id of opts.only) loads.push(await runLoad(id, LOADS[id], ctx));
  } finally {
    await stopAll();
  }
  const meta = machineInfo(null, gatewayCli);
  const result = {
    date: meta.date,
    seconds: Math.round((Date.now() - t0) / 1000),
    gatewayBuild: meta.gatewayBuild,
    machine: `${meta.cpuModel}, ${meta.cores} cores, Node ${meta.node}`,
    hold: opts.hold,
    targetMB: TARGET_MB,
    probeEveryMs: PROBE_EVERY_MS,
    probeTimeoutMs: PROBE_TIMEOUT_MS,
    loads,
  };
  log(`\n${loads.filter((l) => l.met).length}/${loads.length} loads met the target in ${result.seconds} s`);
  if (opts.write) {
    writeFileSync(HOSTILE_JSON, `${JSON.stringify(result, null, 2)}\n`);
    rewriteSections();
    log('wrote bench/hostile.json and the Hostile loads section of bench/RESULTS.md');
  }
  remove();
}

main().catch(async (err) => {
  console.error(err?.stack ?? err);
  await stopAll();
  process.exit(1);
});
