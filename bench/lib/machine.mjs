// What the run was measured on (results.meta), and the open-files limit the fan-in needs.
import { readFileSync } from 'node:fs';
import { spawn, execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileExists, openFilesLimit } from './procs.mjs';
import { nginxVersion } from './nginx.mjs';
import { repoDir, gatewayCli } from './paths.mjs';

function cpuModel() {
  try {
    return /model name\s*:\s*(.*)/.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1]?.trim() ?? 'unknown';
  } catch {
    return 'unknown'; // not linux
  }
}

function git(dir, ...args) {
  try {
    return execFileSync('git', args, { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return null;
  }
}

/** The version of a package in the repo's node_modules, or null. */
function packageVersion(pkg) {
  try {
    return JSON.parse(readFileSync(path.join(repoDir, 'node_modules', pkg, 'package.json'), 'utf8')).version;
  } catch {
    return null;
  }
}

/** Which source the measured gateway was built from, as far as can be told. */
function gatewaySource(cli, commit) {
  if (cli === gatewayCli) {
    const dirty = git(repoDir, 'status', '--porcelain', '--', 'src');
    const changes = dirty ? ', with uncommitted changes in src/' : '';
    return `dist/ of this checkout (commit ${commit ?? 'unknown'}${changes})`;
  }
  // A build made elsewhere may say what it is (bench/README.md, `--gateway-cli`).
  const stamp = path.join(path.dirname(cli), '..', 'BENCH_SOURCE');
  if (fileExists(stamp)) return readFileSync(stamp, 'utf8').trim();
  const other = git(path.dirname(cli), 'rev-parse', '--short', 'HEAD');
  return other ? `build at ${cli} (checkout at ${other})` : `build at ${cli}`;
}

export function machineInfo(nginxBin, cli) {
  const commit = git(repoDir, 'rev-parse', '--short', 'HEAD');
  const cliRelative = path.relative(repoDir, cli);
  return {
    date: new Date().toISOString(),
    cpuModel: cpuModel(),
    cores: os.cpus().length,
    memGB: Math.round(os.totalmem() / 1e9),
    loadAvgAtStart: os.loadavg().map((x) => Number(x.toFixed(2))),
    kernel: os.release(),
    node: process.version,
    nginx: nginxBin ? nginxVersion(nginxBin) : null,
    autocannon: packageVersion('autocannon'),
    httpProxyMiddleware: packageVersion('http-proxy-middleware'),
    commit,
    gatewayCli: cliRelative.startsWith('..') ? cli : cliRelative,
    gatewayBuild: fileExists(cli) ? gatewaySource(cli, commit) : `${cliRelative} missing`,
  };
}

/** Run this same command again under `ulimit -n needed`; this process only waits for it. */
function reexecWithLimit(needed) {
  const script = `ulimit -n ${needed} && exec "$0" "$@"`;
  const child = spawn('/bin/sh', ['-c', script, process.execPath, ...process.argv.slice(1)], {
    stdio: 'inherit',
    env: { ...process.env, A2A_BENCH_REEXEC: '1' },
  });
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
}

/**
 * Make sure `needed` files can be open. Returns {ok: true}; {reexec: true} when the run goes on
 * in a child under a raised soft limit; or {ok: false, lim} when the hard limit is too low.
 */
export function ensureOpenFiles(needed, log) {
  const lim = openFilesLimit();
  if (!lim || lim.soft >= needed) return { ok: true, lim };
  if (process.env.A2A_BENCH_REEXEC !== '1' && lim.hard >= needed) {
    log(`open-files limit ${lim.soft} < ${needed}: re-running under \`ulimit -n ${needed}\``);
    reexecWithLimit(needed);
    return { ok: false, reexec: true };
  }
  return { ok: false, lim };
}
