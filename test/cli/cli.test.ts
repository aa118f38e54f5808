/** The CLI contract: check-config exits 0/1 with the problem named; the server starts, serves
 * and drains on SIGTERM. Runs the built CLI (`npm test` builds first). */
import { describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { startPeerV1 } from '../peers/peer-v1.js';

const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'a2a-gw-cli-'));
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

describe('a2a-gateway CLI', () => {
  it('is built', () => {
    expect(existsSync(CLI), 'run `npm run build` first').toBe(true);
  });

  it('check-config accepts the shipped demo config', () => {
    const run = spawnSync(process.execPath, [CLI, 'check-config', fileURLToPath(new URL('../../config/gateway.yaml', import.meta.url))], { encoding: 'utf8' });
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/valid \(3 agents/);
  });

  it('check-config exits 1 naming the file, key path and problem', () => {
    const bad = file('bad.yaml', 'agents:\n  reviewer:\n    url: not-a-url\n');
    const run = spawnSync(process.execPath, [CLI, 'check-config', bad], { encoding: 'utf8' });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(bad);
    expect(run.stderr).toContain('agents.reviewer.url: must be an absolute http:// or https:// URL');
  });

  it('refuses to start on an invalid config, exiting non-zero with the message', () => {
    const bad = file('bad2.yaml', 'listen: { port: -1 }\nagents:\n  a:\n    url: http://127.0.0.1:1\n');
    const run = spawnSync(process.execPath, [CLI, '--config', bad], { encoding: 'utf8', timeout: 10_000 });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/listen\.port/);
  });

  it('explains its usage on a bad command line', () => {
    const run = spawnSync(process.execPath, [CLI, 'frobnicate'], { encoding: 'utf8' });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/usage:/);
  });

  it('serves, honours --port, and exits 0 on SIGTERM', async () => {
    const peer = await startPeerV1();
    const config = file('ok.yaml', `listen: { host: 127.0.0.1, port: 1 }\nagents:\n  a:\n    url: ${peer.url}\n`);
    const child = spawn(process.execPath, [CLI, '--config', config, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      let out = '';
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no listening line: ${out}`)), 10_000);
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          const m = /"url":"(http:\/\/[^"]+)"/.exec(out);
          if (m) {
            clearTimeout(timer);
            resolve(m[1]!);
          }
        });
      });
      const res = await request(`${url}/healthz`);
      expect(res.statusCode).toBe(200);
      await res.body.dump();
      const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      child.kill('SIGKILL');
      await peer.close();
    }
  });
});
