/**
 * No Docker engine runs here, so the image's build steps are exercised piece by piece: every file
 * the Dockerfile copies exists, every npm script it runs exists, and a production-only install
 * (what `npm prune --omit=dev` leaves) runs the built CLI.
 */
import { describe, expect, it } from 'vitest';
import { cpSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };

describe('Dockerfile', () => {
  it('copies only files that exist in the repository', () => {
    const copies = [...dockerfile.matchAll(/^COPY (?!--from)(.+) \S+$/gm)].flatMap((m) => m[1]!.split(/\s+/));
    expect(copies.length).toBeGreaterThan(3);
    for (const path of copies) expect(existsSync(join(ROOT, path)), path).toBe(true);
  });

  it('runs npm scripts that exist', () => {
    const runLines = dockerfile
      .split('\n')
      .filter((l) => l.startsWith('RUN '))
      .join('\n');
    const scripts = [...runLines.matchAll(/npm run ([\w:-]+)/g)].map((m) => m[1]!);
    expect(scripts).toContain('build');
    for (const s of scripts) expect(pkg.scripts[s], s).toBeDefined();
  });

  it('uses a non-root user, a health check on /healthz and the CLI entry point', () => {
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toMatch(/HEALTHCHECK[\s\S]*\/healthz/);
    expect(dockerfile).toMatch(/ENTRYPOINT \["node", "dist\/cli\.js"\]/);
  });

  it('starts the CLI from a production-only install', () => {
    const dir = mkdtempSync(join(tmpdir(), 'a2a-gw-image-'));
    for (const f of ['package.json', 'package-lock.json']) cpSync(join(ROOT, f), join(dir, f));
    cpSync(join(ROOT, 'dist'), join(dir, 'dist'), { recursive: true });
    const install = spawnSync(
      'npm',
      ['ci', '--omit=dev', '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund'],
      { cwd: dir, encoding: 'utf8', timeout: 180_000 },
    );
    expect(install.status, install.stderr).toBe(0);
    expect(existsSync(join(dir, 'node_modules', 'vitest'))).toBe(false);
    writeFileSync(join(dir, 'gw.yaml'), 'agents:\n  a:\n    url: http://127.0.0.1:9101\n');
    const run = spawnSync(process.execPath, ['dist/cli.js', 'check-config', 'gw.yaml'], { cwd: dir, encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  }, 200_000);
});
