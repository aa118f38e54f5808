/**
 * Gateway replicas as real processes (the built CLI, dist/cli.js) behind a real nginx that
 * balances round-robin, as a platform team runs them: for the shared-state tests.
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pollUntil } from '../../peers/deadline.js';

const CLI = fileURLToPath(new URL('../../../dist/cli.js', import.meta.url));

export interface GatewayProcess {
  readonly child: ChildProcessWithoutNullStreams;
  readonly url: string;
  readonly adminUrl: string;
  /** The config file it runs on: write it and `reload()` to change it. */
  readonly configPath: string;
  /** `POST /admin/reload`; rejects unless the reload applied. */
  reload(): Promise<void>;
  /** Everything it logged so far (pino JSON lines). */
  log(): string;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Starts the CLI on `config` (YAML text) and waits for its "gateway listening" line. */
export async function startGatewayProcess(config: string, env: Record<string, string> = {}): Promise<GatewayProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-gw-replica-'));
  const file = join(dir, 'gateway.yaml');
  writeFileSync(file, config);
  const child = spawn(process.execPath, [CLI, '--config', file], { stdio: 'pipe', env: { ...process.env, ...env } });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const { url, adminUrl } = await new Promise<{ url: string; adminUrl: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no listening line: ${out}`)), 15_000);
    const check = () => {
      const m = /"url":"(http:\/\/[^"]+)","adminUrl":"(http:\/\/[^"]+)"/.exec(out);
      if (!m) return;
      clearTimeout(timer);
      child.stdout.off('data', check);
      resolve({ url: m[1]!, adminUrl: m[2]! });
    };
    child.stdout.on('data', check);
    child.once('exit', (code) => reject(new Error(`gateway exited (${code}): ${out}`)));
  });
  const stop = async () => {
    if (child.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    await exited;
  };
  const reload = async () => {
    const res = await fetch(`${adminUrl}/admin/reload`, { method: 'POST' });
    if (res.status !== 200) throw new Error(`reload answered ${res.status}: ${await res.text()}`);
  };
  return { child, url, adminUrl, configPath: file, reload, log: () => out, stop };
}

/**
 * Until the gateway's `/readyz` answers 200 (its store up) and, given its admin listener, every
 * agent's card has been fetched: readiness no longer waits for cards (issue #30), and the tests
 * here start on a gateway that has its agents' cards (e.g. a card's REST paths, for tenants).
 */
export async function waitReady(gateway: { readonly url: string; readonly adminUrl?: string }): Promise<void> {
  await pollUntil(
    () => fetch(`${gateway.url}/readyz`).then((r) => r.status),
    (s) => s === 200,
    15_000,
    'readiness',
  );
  if (gateway.adminUrl === undefined) return;
  const cardsFetched = async () => {
    const res = await fetch(`${gateway.adminUrl}/readyz`);
    // An admin token the test does not hold: readiness alone, as before.
    if (res.status === 401) return true;
    const body = (await res.json()) as { cardsPending?: string[]; cardsUnavailable?: string[] };
    return body.cardsPending === undefined && body.cardsUnavailable === undefined;
  };
  await pollUntil(cardsFetched, (done) => done, 15_000, 'agent cards');
}

/** The loopback listeners, short shutdown and no access log of a test's gateway process. */
export const TEST_GATEWAY_HEAD = `listen: { host: 127.0.0.1, port: 0 }
admin: { listen: { host: 127.0.0.1, port: 0 } }
shutdown: { grace: 1s }
log: { access: false }
`;

/** Starts the CLI on TEST_GATEWAY_HEAD + `rest` (YAML: `state`, `auth`, `agents`, …), ready to serve. */
export async function startReadyGateway(rest: string): Promise<GatewayProcess> {
  const gateway = await startGatewayProcess(TEST_GATEWAY_HEAD + rest);
  await waitReady(gateway);
  return gateway;
}

export interface Balancer {
  readonly url: string;
  stop(): Promise<void>;
}

/** nginx (one worker) on `port` balancing round-robin over `upstreams` (`http://host:port`), streaming. */
export async function startBalancer(upstreams: readonly string[], port: number): Promise<Balancer> {
  const nginx = spawnSync('sh', ['-c', 'command -v nginx || ls /usr/sbin/nginx'], { encoding: 'utf8' }).stdout.trim();
  if (!nginx) throw new Error('nginx is not installed (apt-get install nginx)');
  const dir = mkdtempSync(join(tmpdir(), 'a2a-gw-nginx-'));
  mkdirSync(join(dir, 'tmp'));
  const servers = upstreams.map((u) => `    server ${new URL(u).host};`).join('\n');
  writeFileSync(
    join(dir, 'nginx.conf'),
    `worker_processes 1;
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${dir}/tmp;
  proxy_temp_path ${dir}/tmp;
  fastcgi_temp_path ${dir}/tmp;
  uwsgi_temp_path ${dir}/tmp;
  scgi_temp_path ${dir}/tmp;
  upstream gateways {
${servers}
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://gateways;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_buffering off;
      proxy_request_buffering off;
    }
  }
}
`,
  );
  const child = spawn(nginx, ['-c', join(dir, 'nginx.conf'), '-p', dir], { stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 10_000;
  for (;;) {
    const up = await fetch(`${url}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    if (Date.now() > deadline || child.exitCode !== null) throw new Error('nginx did not start');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const stop = async () => {
    if (child.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGQUIT');
    await exited;
  };
  return { url, stop };
}

/** The sum of a metric's samples whose labels include `labels`, from a Prometheus exposition. */
export function sumOf(exposition: string, name: string, labels: Record<string, string> = {}): number {
  let total = 0;
  for (const line of exposition.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (!Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) continue;
    total += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return total;
}
