/**
 * A real Prometheus (Debian package `prometheus`, installed by .ci/run) on loopback, scraping
 * given targets every second, with its HTTP API for queries, and promtool.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { withDeadline } from '../../peers/deadline.js';

const PROMETHEUS = process.env.PROMETHEUS_BIN ?? '/usr/bin/prometheus';
const PROMTOOL = process.env.PROMTOOL_BIN ?? '/usr/bin/promtool';

export function requireBinaries(): void {
  for (const bin of [PROMETHEUS, PROMTOOL]) {
    if (!existsSync(bin))
      throw new Error(
        `${bin} not found: install the Debian package "prometheus" (.ci/run does) or set PROMETHEUS_BIN / PROMTOOL_BIN`,
      );
  }
}

export interface QueryResult {
  status: 'success' | 'error';
  error?: string;
  data?: { resultType: string; result: Array<{ metric: Record<string, string>; value: [number, string] }> };
}

export interface Prometheus {
  readonly url: string;
  query(expr: string): Promise<QueryResult>;
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface PrometheusOptions {
  /** `host:port` of each scrape target. */
  targets: string[];
  ruleFiles?: string[];
  /** Default `/metrics`. */
  metricsPath?: string;
  /** Sent as `Authorization: Bearer …`, from a credentials file, as docs/operations.md "Metrics" tells operators. */
  bearerToken?: string;
}

export async function startPrometheus(opts: PrometheusOptions): Promise<Prometheus> {
  requireBinaries();
  const dir = mkdtempSync(join(tmpdir(), 'a2a-prom-'));
  const tokenFile = join(dir, 'admin-token');
  if (opts.bearerToken !== undefined) writeFileSync(tokenFile, opts.bearerToken);
  const config = [
    'global: { scrape_interval: 1s, evaluation_interval: 1s }',
    `rule_files: ${JSON.stringify(opts.ruleFiles ?? [])}`,
    'scrape_configs:',
    `  - job_name: a2a-gateway`,
    `    metrics_path: ${JSON.stringify(opts.metricsPath ?? '/metrics')}`,
    ...(opts.bearerToken !== undefined
      ? [`    authorization: { type: Bearer, credentials_file: ${JSON.stringify(tokenFile)} }`]
      : []),
    `    static_configs: [{ targets: ${JSON.stringify(opts.targets)} }]`,
  ].join('\n');
  writeFileSync(join(dir, 'prometheus.yml'), config);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(
    PROMETHEUS,
    [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const close = async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await withDeadline(exited, 10_000, 'prometheus exit').catch(() => child.kill('SIGKILL'));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitFor(
      async () =>
        (await fetch(`${url}/-/ready`, { signal: AbortSignal.timeout(1000) }).catch(() => undefined))?.ok === true,
      20_000,
      'prometheus ready',
      () => stderr,
    );
  } catch (err) {
    await close();
    throw err;
  }
  return {
    url,
    async query(expr) {
      const res = await fetch(`${url}/api/v1/query`, {
        method: 'POST',
        body: new URLSearchParams({ query: expr }),
        signal: AbortSignal.timeout(5000),
      });
      return (await res.json()) as QueryResult;
    },
    close,
  };
}

/** Polls `probe` every 200 ms until it is true; rejects after `ms`. */
export async function waitFor(
  probe: () => Promise<boolean>,
  ms: number,
  what: string,
  detail: () => string = () => '',
): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    if (await probe()) return;
    if (Date.now() > until) throw new Error(`deadline: ${what} not reached within ${ms} ms ${detail()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Runs promtool; stdout+stderr and the exit status. */
export function promtool(args: string[], input?: string): { status: number | null; output: string } {
  const run = spawnSync(PROMTOOL, args, { input, encoding: 'utf8', timeout: 20_000 });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}
