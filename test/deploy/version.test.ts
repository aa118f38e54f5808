/**
 * One version (issue #30 item 3): package.json's, and everything that names the gateway's version
 * agrees with it — the lockfile, the top release in CHANGELOG.md, the image tags (Dockerfile,
 * docker-compose.yml, deploy/kubernetes, docs), the built CLI's `--version`, the User-Agent a real
 * agent socket receives from the built gateway, and `a2a_gateway_build_info` on a real scrape.
 * `npm run demo -- --help` prints its usage and exits 0 rather than running the demo.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { ROOT } from './manifests.js';

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const VERSION = (JSON.parse(read('package.json')) as { version: string }).version;
const CLI = join(ROOT, 'dist/cli.js');

/** Every file under deploy/ (the manifests and compose configs). */
const deployFiles = (): string[] =>
  readdirSync(join(ROOT, 'deploy'), { recursive: true, encoding: 'utf8' })
    .map((f) => `deploy/${f}`)
    .filter((f) => /\.(ya?ml)$/.test(f));

describe('the version', () => {
  it('is a semantic version in package.json, and the lockfile’s root entries say the same', () => {
    expect(VERSION).toMatch(/^\d+\.\d+\.\d+$/);
    const lock = JSON.parse(read('package-lock.json')) as {
      version: string;
      packages: Record<string, { version: string }>;
    };
    expect(lock.version).toBe(VERSION);
    expect(lock.packages['']!.version).toBe(VERSION);
  });

  it('is the top release in CHANGELOG.md (only an Unreleased section above it)', () => {
    const headings = [...read('CHANGELOG.md').matchAll(/^## (.+)$/gm)].map((m) => m[1]!);
    const released = headings.findIndex((h) => /^\d+\.\d+\.\d+ — \d{4}-\d{2}-\d{2}$/.test(h));
    expect(released, headings.join('\n')).toBeGreaterThanOrEqual(0);
    expect(headings[released]!.split(' — ')[0]).toBe(VERSION);
    expect(
      headings.slice(0, released).every((h) => h === 'Unreleased'),
      headings.join('\n'),
    ).toBe(true);
  });

  it('tags the images: compose, the Kubernetes base, the Dockerfile label and the docs', () => {
    const compose = parse(read('docker-compose.yml')) as { services: Record<string, { image?: string }> };
    expect(compose.services['gateway']!.image).toBe(`a2a-gateway:${VERSION}`);
    expect(compose.services['demo-fleet']!.image).toBe(`a2a-gateway-demo:${VERSION}`);
    const deployment = parse(read('deploy/kubernetes/base/deployment.yaml')) as {
      spec: { template: { spec: { containers: Array<{ name: string; image: string }> } } };
    };
    expect(deployment.spec.template.spec.containers[0]!.image).toBe(`a2a-gateway:${VERSION}`);

    const dockerfile = read('Dockerfile');
    expect(dockerfile).toMatch(new RegExp(`^ARG VERSION=${VERSION.replaceAll('.', '\\.')}$`, 'm'));
    const last = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
    expect(last).toMatch(/^ARG VERSION$/m); // an ARG before FROM is out of scope in the stage
    expect(last).toMatch(/org\.opencontainers\.image\.version="\$\{VERSION\}"/);
    expect(read('docs/deploying.md')).toContain(
      `docker build -t a2a-gateway:$(node -p "require('./package.json').version") .`,
    );

    // Any other tag written anywhere a reader copies it from names this version too.
    const files = ['Dockerfile', 'docker-compose.yml', 'README.md', 'docs/deploying.md', ...deployFiles()];
    const tags = files.flatMap((f) =>
      [...read(f).matchAll(/a2a-gateway(?:-demo)?:(\d+\.\d+\.\d+)/g)].map((m) => `${f}: ${m[0]}`),
    );
    expect(tags.length).toBeGreaterThanOrEqual(5);
    for (const tag of tags) expect(tag.endsWith(`:${VERSION}`), tag).toBe(true);
  });

  it('is what the built CLI prints for --version and -v', () => {
    expect(existsSync(CLI), 'run `npm run build` first').toBe(true);
    for (const flag of ['--version', '-v']) {
      const run = spawnSync(process.execPath, [CLI, flag], { encoding: 'utf8', timeout: 10_000 });
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
      expect(run.stdout).toBe(`${VERSION}\n`);
    }
    const help = spawnSync(process.execPath, [CLI, '--help'], { encoding: 'utf8', timeout: 10_000 });
    expect(help.stdout).toContain('a2a-gateway --version');
  });
});

describe('the built gateway running', () => {
  /** The requests a bare HTTP agent got, by path, with their headers. */
  const seen: Array<{ path: string; headers: IncomingHttpHeaders }> = [];
  let agent: Server;
  let child: ChildProcessWithoutNullStreams | undefined;
  let adminUrl: string;
  const agentPort = () => (agent.address() as AddressInfo).port;

  beforeAll(async () => {
    // A plain socket, not an SDK server: what arrives is exactly what the gateway sent.
    agent = createServer((req, res) => {
      seen.push({ path: req.url ?? '', headers: req.headers });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          name: 'bare',
          description: 'a bare agent',
          version: '1.0.0',
          supportedInterfaces: [
            { url: `http://127.0.0.1:${agentPort()}/`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
          ],
          capabilities: {},
          defaultInputModes: ['text/plain'],
          defaultOutputModes: ['text/plain'],
          skills: [],
        }),
      );
    });
    await new Promise<void>((resolve) => agent.listen(0, '127.0.0.1', resolve));
    const dir = mkdtempSync(join(tmpdir(), 'a2a-gw-version-'));
    const config = join(dir, 'gw.yaml');
    writeFileSync(
      config,
      `listen: { host: 127.0.0.1, port: 0 }\nadmin: { listen: { host: 127.0.0.1, port: 0 } }\nagents:\n  bare:\n    url: http://127.0.0.1:${agentPort()}\n`,
    );
    child = spawn(process.execPath, [CLI, '--config', config], { stdio: 'pipe' });
    adminUrl = await listening(child);
  });

  afterAll(async () => {
    child?.kill('SIGKILL');
    await new Promise((resolve) => agent?.close(resolve));
  });

  it('names itself a2a-gateway/<version> in the User-Agent of its card fetch', async () => {
    await until(() => seen.some((r) => r.path === '/.well-known/agent-card.json'));
    const fetched = seen.find((r) => r.path === '/.well-known/agent-card.json')!;
    expect(fetched.headers['user-agent']).toBe(`a2a-gateway/${VERSION}`);
  });

  it('exports a2a_gateway_build_info{version,node_version} 1 on /metrics', async () => {
    const res = await fetch(`${adminUrl}/metrics`, { signal: AbortSignal.timeout(5000) });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toMatch(/^# TYPE a2a_gateway_build_info gauge$/m);
    const series = text.split('\n').filter((l) => l.startsWith('a2a_gateway_build_info{'));
    // The child runs on this same Node.js (process.execPath).
    expect(series).toEqual([`a2a_gateway_build_info{version="${VERSION}",node_version="${process.versions.node}"} 1`]);
  });
});

describe('npm run demo -- --help', () => {
  it('prints the demo’s usage and exits 0, without running the demo', () => {
    expect(existsSync(join(ROOT, 'dist/demo/client.js')), 'run `npm run build` first').toBe(true);
    // Nothing listens on these: had --help been taken for a run, the demo would fail and say so.
    const env = { ...process.env, A2A_GATEWAY_URL: 'http://127.0.0.1:9', A2A_GATEWAY_ADMIN_URL: 'http://127.0.0.1:9' };
    const run = spawnSync('npm', ['run', '--silent', 'demo', '--', '--help'], {
      cwd: ROOT,
      env,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.status, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^usage: npm run demo -- \[GATEWAY_URL\] \[--admin ADMIN_URL\]$/m);
    expect(run.stdout + run.stderr).not.toContain('demo failed');
  }, 70_000);
});

/** The admin URL of the CLI's "gateway listening" line. */
function listening(proc: ChildProcessWithoutNullStreams): Promise<string> {
  let out = '';
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no listening line: ${out}`)), 15_000);
    proc.stderr.on('data', (d: Buffer) => (out += d.toString()));
    proc.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /"adminUrl":"(http:\/\/[^"]+)"/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    proc.on('exit', (code) => reject(new Error(`the CLI exited ${code}: ${out}`)));
  });
}

async function until(done: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 25));
  }
}
