// What one open, idle SSE stream costs the gateway, per component (issue #17, "light streams").
//
//   node bench/stream-memory.mjs [--streams 1000] [--cli dist/cli.js] [--snapshot] [--no-inspection]
//
// Starts the SSE upstream (bench/servers/sse-upstream.mjs) and a gateway (the built CLI, under
// `--expose-gc` with bench/lib/mem-probe.mjs preloaded), opens N streams that get their first
// event and then stay quiet, and reads the gateway at 0 and N streams: RSS (/proc), and after a
// full GC the V8 heap, external and ArrayBuffer memory. With --snapshot it also writes a heap
// snapshot at both points and prints the growth per stream by constructor (self sizes), which is
// how the table in bench/RESULTS.md ("Light streams") is attributed. Bounded: every stream is
// closed after the measurement, and each process started here is stopped by pid.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { streamingRequest, SSE_HEADERS } from './lib/payloads.mjs';

const benchDir = path.dirname(fileURLToPath(import.meta.url));
const repoDir = path.dirname(benchDir);

const { values: opt } = parseArgs({
  options: {
    streams: { type: 'string', default: '1000' },
    cli: { type: 'string', default: path.join(repoDir, 'dist', 'cli.js') },
    snapshot: { type: 'boolean', default: false },
    'no-inspection': { type: 'boolean', default: false },
    'node-options': { type: 'string', default: '' },
    json: { type: 'boolean', default: false },
  },
});
const N = Number(opt.streams);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const children = [];
const tmp = mkdtempSync(path.join(os.tmpdir(), 'a2a-stream-mem-'));

function stopAll() {
  for (const c of children) {
    try {
      process.kill(c.pid, 'SIGTERM');
    } catch {
      /* gone */
    }
  }
  if (!process.env.KEEP_SNAPSHOTS) rmSync(tmp, { recursive: true, force: true });
}
process.on('SIGINT', () => {
  stopAll();
  process.exit(130);
});

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

function start(name, args, env = {}) {
  const child = spawn(process.execPath, args, {
    stdio: ['pipe', 'ignore', 'pipe'],
    env: { ...process.env, ...env },
    cwd: repoDir,
  });
  let err = '';
  child.stderr.on('data', (c) => (err = (err + c).slice(-4000)));
  child.on('exit', (code) => {
    if (code) process.stderr.write(`${name} exited ${code}: ${err}\n`);
  });
  children.push(child);
  return child;
}

async function waitHttp(url, ms = 20_000) {
  const end = Date.now() + ms;
  for (;;) {
    const ok = await new Promise((resolve) => {
      const req = http.get(url, (res) => {
        res.resume();
        resolve(res.statusCode === 200);
      });
      req.on('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > end) throw new Error(`${url} not ready`);
    await sleep(100);
  }
}

function rssKB(pid) {
  const s = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(s)[1]);
}

async function probe(pid) {
  const file = path.join(tmp, 'probe.json');
  rmSync(file, { force: true });
  process.kill(pid, 'SIGUSR2');
  const end = Date.now() + 120_000;
  while (!existsSync(file)) {
    if (Date.now() > end) throw new Error('probe timed out');
    await sleep(100);
  }
  await sleep(50);
  return { ...JSON.parse(readFileSync(file, 'utf8')), rssKB: rssKB(pid) };
}

/** Self size and count per node "type:name" of a heap snapshot. */
function snapshotByConstructor(file) {
  const snap = JSON.parse(readFileSync(file, 'utf8'));
  const { node_fields: fields, node_types: types } = snap.snapshot.meta;
  const width = fields.length;
  const iType = fields.indexOf('type');
  const iName = fields.indexOf('name');
  const iSize = fields.indexOf('self_size');
  const typeNames = types[iType];
  const out = new Map();
  const { nodes, strings } = snap;
  for (let i = 0; i < nodes.length; i += width) {
    const type = typeNames[nodes[i + iType]];
    let name =
      type === 'string' || type === 'concatenated string' || type === 'sliced string' ? '' : strings[nodes[i + iName]];
    if (name.length > 60) name = `${name.slice(0, 57)}...`;
    const key = `${type}:${name}`;
    const e = out.get(key) ?? { count: 0, size: 0 };
    e.count++;
    e.size += nodes[i + iSize];
    out.set(key, e);
  }
  return out;
}

function openIdleStreams(url, n) {
  const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
  const reqs = [];
  let opened = 0;
  let failed = 0;
  const body = streamingRequest({ events: 3, eventBytes: 512, mode: 'interval', intervalMs: 590_000 });
  const headers = { ...SSE_HEADERS, 'content-length': Buffer.byteLength(body) };
  const openOne = () =>
    new Promise((resolve) => {
      const req = http.request(url, { method: 'POST', agent, headers }, (res) => {
        if (res.statusCode === 200) opened++;
        else failed++;
        // Wait for the first event (the task) so the stream has been through the inspector.
        res.once('data', () => resolve());
        res.on('data', () => {});
        res.on('error', () => {});
      });
      req.on('error', () => {
        failed++;
        resolve();
      });
      req.end(body);
      reqs.push(req);
    });
  return {
    reqs,
    get opened() {
      return opened;
    },
    get failed() {
      return failed;
    },
    async open() {
      for (let i = 0; i < n; i += 100) {
        await Promise.all(Array.from({ length: Math.min(100, n - i) }, openOne));
      }
    },
    close() {
      for (const r of reqs) r.destroy();
      agent.destroy();
    },
  };
}

async function main() {
  const ssePort = await freePort();
  const gwPort = await freePort();
  const adminPort = await freePort();
  start('sse-upstream', [path.join(benchDir, 'servers', 'sse-upstream.mjs'), '--port', String(ssePort)]);
  await waitHttp(`http://127.0.0.1:${ssePort}/.well-known/agent-card.json`);
  const config = {
    listen: { host: '127.0.0.1', port: gwPort },
    admin: { listen: { host: '127.0.0.1', port: adminPort } },
    agents: { sse: { url: `http://127.0.0.1:${ssePort}`, streamConnections: Math.max(N + 100, 1000) } },
    ...(opt['no-inspection'] ? { inspection: { enabled: false } } : {}),
  };
  const file = path.join(tmp, 'gateway.yaml');
  writeFileSync(file, JSON.stringify(config));
  const nodeArgs = ['--expose-gc', '--import', path.join(benchDir, 'lib', 'mem-probe.mjs')];
  if (opt['node-options']) nodeArgs.push(...opt['node-options'].split(' '));
  const gw = start('gateway', [...nodeArgs, opt.cli, '--config', file], {
    A2A_MEM_PROBE_FILE: path.join(tmp, 'probe.json'),
    ...(opt.snapshot ? { A2A_MEM_SNAPSHOT_DIR: tmp } : {}),
  });
  await waitHttp(`http://127.0.0.1:${gwPort}/readyz`);
  const url = `http://127.0.0.1:${gwPort}/agents/sse/a2a/jsonrpc`;
  // Warm up: the first streams compile the code paths (and grow pools) that every later one shares.
  const warm = openIdleStreams(url, 50);
  await warm.open();
  warm.close();
  await sleep(1000);
  const before = await probe(gw.pid);
  const s = openIdleStreams(url, N);
  const t0 = Date.now();
  await s.open();
  const openS = (Date.now() - t0) / 1000;
  await sleep(1500);
  const rssAllOpen = rssKB(gw.pid);
  const after = await probe(gw.pid);
  const per = (a, b) => ((b - a) / N / 1024).toFixed(2);
  const result = {
    streams: N,
    opened: s.opened,
    failed: s.failed,
    openS,
    rssBeforeMB: before.rssKB / 1024,
    rssAllOpenMB: rssAllOpen / 1024,
    rssAfterGcMB: after.rssKB / 1024,
    perStreamKB: {
      rss: per(before.rssKB * 1024, rssAllOpen * 1024),
      rssAfterGc: per(before.rssKB * 1024, after.rssKB * 1024),
      heapUsed: per(before.heapUsed, after.heapUsed),
      heapTotal: per(before.heapTotal, after.heapTotal),
      external: per(before.external, after.external),
      arrayBuffers: per(before.arrayBuffers, after.arrayBuffers),
    },
  };
  if (opt.snapshot) {
    const a = snapshotByConstructor(before.snapshot);
    const b = snapshotByConstructor(after.snapshot);
    const rows = [];
    for (const [k, e] of b) {
      const p = a.get(k) ?? { count: 0, size: 0 };
      const dSize = e.size - p.size;
      const dCount = e.count - p.count;
      if (Math.abs(dSize) / N >= 16) rows.push({ k, perStreamB: dSize / N, countPerStream: dCount / N });
    }
    rows.sort((x, y) => y.perStreamB - x.perStreamB);
    result.byConstructor = rows.slice(0, 60);
  }
  if (process.env.KEEP_SNAPSHOTS) console.log(before.snapshot, after.snapshot);
  s.close();
  if (opt.json) console.log(JSON.stringify(result, null, 2));
  else {
    const { byConstructor, ...rest } = result;
    console.log(JSON.stringify(rest, null, 2));
    if (byConstructor) {
      console.log('\nheap growth per stream by node (type:name), bytes, count per stream:');
      for (const r of byConstructor)
        console.log(`${r.perStreamB.toFixed(0).padStart(7)}  ${r.countPerStream.toFixed(2).padStart(6)}  ${r.k}`);
    }
  }
}

main()
  .catch((err) => {
    console.error(err);
    process.exitCode = 1;
  })
  .finally(stopAll);
