// Process bookkeeping for the harness: every child it starts is registered here and
// stopped (by pid, never by name) on normal exit, on error and on SIGINT/SIGTERM.
// Also: free loopback ports, /proc readers for RSS and CPU, and small wait helpers.
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync, existsSync, accessSync, constants as fsc } from 'node:fs';
import net from 'node:net';
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import path from 'node:path';

/** @type {Map<number, {name: string, child: import('node:child_process').ChildProcess, exited: boolean}>} */
const started = new Map();

/**
 * Spawn a child and register it for cleanup. `stdio[1]` is usually 'ignore' (= /dev/null).
 * stderr is piped and its last 8 KB kept for error messages.
 */
export function startProcess(name, cmd, args, opts = {}) {
  const child = spawn(cmd, args, {
    stdio: opts.stdio ?? ['pipe', 'ignore', 'pipe'],
    env: opts.env ?? process.env,
    cwd: opts.cwd,
  });
  const entry = { name, child, exited: false, stderrTail: '', exitCode: null, exitSignal: null };
  if (child.stderr) {
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d) => {
      entry.stderrTail = (entry.stderrTail + d).slice(-8192);
      if (opts.echoStderr) process.stderr.write(`[${name}] ${d}`);
    });
  }
  child.on('exit', (code, signal) => {
    entry.exited = true;
    entry.exitCode = code;
    entry.exitSignal = signal;
  });
  child.on('error', (err) => {
    entry.exited = true;
    entry.stderrTail += `\nspawn error: ${err.message}`;
  });
  if (child.pid !== undefined) started.set(child.pid, entry);
  return entry;
}

/** Stop one registered child by pid: SIGTERM, then SIGKILL after `graceMs`. */
export async function stopProcess(entry, { signal = 'SIGTERM', graceMs = 3000 } = {}) {
  if (!entry || !entry.child.pid) return;
  const pid = entry.child.pid;
  if (!entry.exited) {
    const gone = new Promise((resolve) => entry.child.once('exit', resolve));
    try {
      process.kill(pid, signal);
    } catch {
      /* already gone */
    }
    const t = sleep(graceMs).then(() => 'timeout');
    if ((await Promise.race([gone, t])) === 'timeout' && !entry.exited) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
      await Promise.race([gone, sleep(1000)]);
    }
  }
  started.delete(pid);
}

export async function stopAll() {
  const entries = [...started.values()].reverse();
  await Promise.all(entries.map((e) => stopProcess(e)));
}

/** Last-resort synchronous cleanup (process 'exit' handler): SIGKILL whatever is left. */
export function killAllSync() {
  for (const [pid, e] of started) {
    if (!e.exited) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
  }
  started.clear();
}

let cleanupInstalled = false;
/**
 * Install handlers so children are stopped even on error or Ctrl-C: on a signal, every child is
 * stopped (SIGTERM, then SIGKILL) and then `onCleanup` runs; on any exit, whatever is left is
 * SIGKILLed and `onExitSync` runs.
 */
export function installCleanup(onCleanup, onExitSync) {
  if (cleanupInstalled) return;
  cleanupInstalled = true;
  let stopping = false;
  const handler = async (sig) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`\n${sig}: stopping everything the harness started...\n`);
    await stopAll();
    try {
      await onCleanup?.();
    } catch {
      /* best effort */
    }
    process.exit(sig === 'SIGINT' ? 130 : 143);
  };
  process.on('SIGINT', () => handler('SIGINT'));
  process.on('SIGTERM', () => handler('SIGTERM'));
  process.on('SIGHUP', () => handler('SIGHUP'));
  process.on('exit', () => {
    killAllSync();
    try {
      onExitSync?.();
    } catch {
      /* best effort */
    }
  });
}

/** A free TCP port on 127.0.0.1 (bind to 0, read it, close). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.unref();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** One HTTP request with a short timeout; resolves {status, body} or rejects. */
export function httpRequest(url, { method = 'GET', headers = {}, body, timeoutMs = 2000 } = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers, agent: false, timeout: timeoutMs }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
      );
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`timeout after ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

const stderrOf = (entry) => entry.stderrTail.trim().slice(-2000);

/** Poll `url` until it answers `status` (default 200), or fail after `timeoutMs` or if `entry` exits. */
export async function waitForHttp(url, { status = 200, timeoutMs = 15000, entry } = {}) {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    if (entry?.exited) {
      const how = `code ${entry.exitCode}, signal ${entry.exitSignal}`;
      throw new Error(`process exited (${how}) before ${url} was ready: ${stderrOf(entry)}`);
    }
    try {
      const r = await httpRequest(url, { timeoutMs: 1000 });
      if (r.status === status) return r;
      last = `HTTP ${r.status}`;
    } catch (err) {
      last = err.message;
    }
    await sleep(100);
  }
  const stderr = entry ? `; stderr: ${stderrOf(entry)}` : '';
  throw new Error(`${url} not ready after ${timeoutMs} ms (last: ${last})${stderr}`);
}

// ---- /proc readers -------------------------------------------------------------------------

const CLK_TCK = 100; // Linux USER_HZ is 100 on every mainstream architecture

/** {rssKB, hwmKB} from /proc/<pid>/status, or null if the process is gone. */
export function readMem(pid) {
  try {
    const s = readFileSync(`/proc/${pid}/status`, 'utf8');
    const rss = /VmRSS:\s+(\d+)/.exec(s);
    const hwm = /VmHWM:\s+(\d+)/.exec(s);
    return { rssKB: rss ? Number(rss[1]) : 0, hwmKB: hwm ? Number(hwm[1]) : 0 };
  } catch {
    return null;
  }
}

/** CPU seconds (utime+stime) of a process from /proc/<pid>/stat, or null. */
export function readCpuSeconds(pid) {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // comm can contain spaces and parentheses: fields start after the last ')'.
    const rest = s.slice(s.lastIndexOf(')') + 2).split(' ');
    // rest[0] is field 3 (state); utime is field 14, stime field 15.
    return (Number(rest[11]) + Number(rest[12])) / CLK_TCK;
  } catch {
    return null;
  }
}

/** Every descendant of a pid (children, their children, …), by /proc. */
export function descendantPids(pid) {
  const out = [];
  const queue = [pid];
  while (queue.length) {
    for (const c of childPids(queue.shift())) {
      out.push(c);
      queue.push(c);
    }
  }
  return out;
}

/**
 * CPU seconds of a process and all its live descendants (a gateway with `workers`: the primary
 * and every worker), or null when the process is gone. A descendant that exits between two
 * readings takes its CPU with it: the harness reads it around runs in which none does.
 */
export function readTreeCpuSeconds(pid) {
  const own = readCpuSeconds(pid);
  if (own === null) return null;
  let sum = own;
  for (const c of descendantPids(pid)) sum += readCpuSeconds(c) ?? 0;
  return sum;
}

/** Reset the peak-RSS counter (VmHWM) of a process; returns false if not permitted. */
export function resetPeakRss(pid) {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** Direct children of a pid (via /proc/<pid>/task/<pid>/children, else a /proc scan). */
export function childPids(pid) {
  try {
    const s = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
    if (s) return s.split(/\s+/).map(Number);
  } catch {
    /* fall through */
  }
  const out = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const s = readFileSync(`/proc/${d}/stat`, 'utf8');
      const rest = s.slice(s.lastIndexOf(')') + 2).split(' ');
      if (Number(rest[1]) === pid) out.push(Number(d));
    } catch {
      /* raced */
    }
  }
  return out;
}

/** Open descriptors (sockets included) of a process, entries of /proc/<pid>/fd; null when it is gone. */
export function openFds(pid) {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return null;
  }
}

/** Soft and hard limits on open files for this process. */
export function openFilesLimit() {
  try {
    const s = readFileSync('/proc/self/limits', 'utf8');
    const m = /Max open files\s+(\S+)\s+(\S+)/.exec(s);
    const n = (v) => (v === 'unlimited' ? Infinity : Number(v));
    return m ? { soft: n(m[1]), hard: n(m[2]) } : null;
  } catch {
    return null;
  }
}

/**
 * Samples RSS of a pid every `intervalMs` until stopped; returns {baselineKB, maxKB, hwmKB, samples}.
 * The peak counter is reset at start (when permitted) so VmHWM covers this window only.
 */
export function rssSampler(pid, intervalMs = 50) {
  if (!pid) return { stop: () => null };
  const base = readMem(pid);
  const hwmReset = resetPeakRss(pid);
  let maxKB = base?.rssKB ?? 0;
  let n = 0;
  const timer = setInterval(() => {
    const m = readMem(pid);
    if (m) {
      maxKB = Math.max(maxKB, m.rssKB);
      n++;
    }
  }, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      const end = readMem(pid);
      if (end) maxKB = Math.max(maxKB, end.rssKB);
      const peakKB = hwmReset && end ? Math.max(maxKB, end.hwmKB) : maxKB;
      return { baselineKB: base?.rssKB ?? null, peakKB, endKB: end?.rssKB ?? null, hwmReset, samples: n };
    },
  };
}

// ---- misc ---------------------------------------------------------------------------------

/** Locate an executable on PATH or in the usual sbin directories. */
export function findExecutable(name) {
  const dirs = (process.env.PATH ?? '').split(':').concat(['/usr/sbin', '/usr/local/sbin', '/sbin']);
  for (const d of dirs) {
    if (!d) continue;
    const p = path.join(d, name);
    try {
      accessSync(p, fsc.X_OK);
      return p;
    } catch {
      /* next */
    }
  }
  return null;
}

export function fileExists(p) {
  return existsSync(p);
}
