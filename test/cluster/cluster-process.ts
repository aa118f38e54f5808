/** The built CLI in worker mode as a real process tree: its JSON log lines, the primary's
 * children (from /proc), A2A sends on fresh connections (so node:cluster spreads them). */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';

export const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

export type LogLine = Record<string, any> & { msg: string };

export interface ClusterProcess {
  readonly child: ChildProcessWithoutNullStreams;
  readonly url: string;
  readonly adminUrl: string;
  readonly lines: LogLine[];
  /** The config file it runs (rewrite it, then SIGHUP, to reload). */
  readonly file: string;
  readonly exited: Promise<number | null>;
  /** Resolves with the first line (past or future) that matches; rejects after `ms`. */
  waitFor(match: (line: LogLine) => boolean, what: string, ms?: number): Promise<LogLine>;
  /** The primary's child processes right now (the workers). */
  workerPids(): number[];
}

export function writeConfig(text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'a2a-gw-cluster-')), 'gateway.yaml');
  writeFileSync(path, text);
  return path;
}

/** `detached`: the tree gets its own process group, as in a terminal (signal it with -pid). */
export async function startCluster(configText: string, opts: { detached?: boolean } = {}): Promise<ClusterProcess> {
  const file = writeConfig(configText);
  const child = spawn(process.execPath, [CLI, '--config', file], {
    stdio: 'pipe',
    detached: opts.detached ?? false,
  });
  const lines: LogLine[] = [];
  const waiters = new Set<() => void>();
  let partial = '';
  child.stdout.on('data', (d: Buffer) => {
    const parts = (partial + d.toString()).split('\n');
    partial = parts.pop()!;
    for (const part of parts) if (part.startsWith('{')) lines.push(JSON.parse(part) as LogLine);
    for (const wake of waiters) wake();
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const waitFor = (match: (line: LogLine) => boolean, what: string, ms = 15_000) =>
    new Promise<LogLine>((resolve, reject) => {
      const check = () => {
        const found = lines.find(match);
        if (!found) return;
        clearTimeout(timer);
        waiters.delete(check);
        resolve(found);
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`no log line: ${what}\n${lines.map((l) => JSON.stringify(l)).join('\n')}\n${stderr}`));
      }, ms);
      waiters.add(check);
      check();
    });
  const listening = await waitFor((l) => l.msg === 'gateway listening', 'gateway listening');
  const workerPids = () => childrenOf(child.pid!);
  return { child, url: listening.url, adminUrl: listening.adminUrl, lines, file, exited, waitFor, workerPids };
}

/** Linux: the processes whose parent is `pid`. */
export function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // pid (comm) state ppid …: comm may hold spaces, so read after the last ')'.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
      if (ppid === pid && state !== 'Z') out.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return out.sort((a, b) => a - b);
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** One A2A JSON-RPC SendMessage (a question: the peer answers with a direct message), on a fresh
 * connection that the gateway closes after the answer (undici `reset`). Returns the HTTP status. */
export async function sendMessage(url: string, messageId: string, agent = 'a'): Promise<number> {
  const res = await request(`${url}/agents/${agent}/a2a/jsonrpc`, {
    method: 'POST',
    reset: true,
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: { message: { messageId, role: 'ROLE_USER', parts: [{ text: 'are you there?' }] } },
    }),
  });
  if (res.statusCode !== 200) {
    await res.body.dump();
    return res.statusCode;
  }
  const body = (await res.body.json()) as { result?: unknown };
  return res.statusCode === 200 && body.result !== undefined ? 200 : res.statusCode || 599;
}

/** `a2a_requests_total` summed over all its series, from the admin listener's /metrics. */
export async function requestsTotal(adminUrl: string): Promise<number> {
  const res = await request(`${adminUrl}/metrics`);
  const text = await res.body.text();
  if (res.statusCode !== 200) throw new Error(`/metrics answered ${res.statusCode}: ${text}`);
  return text
    .split('\n')
    .filter((line) => line.startsWith('a2a_requests_total{'))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

/** Polls `read` until it returns `want` or `ms` pass; returns the last value read. */
export async function settleTo<T>(read: () => Promise<T>, want: T, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  let last = await read();
  while (last !== want && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    last = await read();
  }
  return last;
}
