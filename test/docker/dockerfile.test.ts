/**
 * No Docker engine runs here, so the image's build steps are exercised piece by piece: every file
 * the Dockerfile copies exists, every npm script it runs exists, and a production-only install
 * (what `npm prune --omit=dev` leaves) runs the built CLI — without the demo fleet's libraries,
 * which nothing but dist/demo (left out of the gateway's image) imports.
 */
import { describe, expect, it } from 'vitest';
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  version: string;
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
};
/** Used by src/demo only: dev dependencies, not in the gateway's image. */
const DEMO_ONLY = ['@a2a-js/sdk', 'express'];

/** The built JavaScript files under `dir`, relative to it. */
const builtFiles = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.js') || f.endsWith('.mjs'));

/** The module specifiers a built file imports (static `import … from`, `export … from`, `import()`). */
const importsOf = (code: string): string[] =>
  [...code.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)['"]([^'"]+)['"]/g)].map((m) => m[1]!);

const isDemoOnly = (specifier: string) => DEMO_ONLY.some((d) => specifier === d || specifier.startsWith(`${d}/`));

const read = (dir: string, file: string) => readFileSync(join(dir, file), 'utf8');

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

  it('builds the gateway image last (the default target), pruned to production and without the demo', () => {
    const stages = [...dockerfile.matchAll(/^FROM .*$/gm)].map((m) => m[0]);
    expect(stages.at(-1)).not.toMatch(/ AS /);
    expect(dockerfile).toMatch(/^RUN npm prune --omit=dev && rm -rf dist\/demo$/m);
    const last = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
    for (const copied of last.matchAll(/^COPY --from=(\S+)/gm)) expect(copied[1]).toBe('production');
  });

  it('ships no demo-only library as a production dependency', () => {
    for (const name of DEMO_ONLY) expect(Object.keys(pkg.dependencies), name).not.toContain(name);
  });

  it('imports the demo-only libraries nowhere in dist but dist/demo', () => {
    const dist = join(ROOT, 'dist');
    const files = builtFiles(dist);
    expect(files).toContain('cli.js'); // built (npm run build)
    const demoImports = files.filter((f) => f.startsWith('demo/')).flatMap((f) => importsOf(read(dist, f)));
    expect(demoImports.filter(isDemoOnly).length).toBeGreaterThan(0); // the scan finds them where they are
    const offenders = files
      .filter((f) => !f.startsWith('demo/'))
      .flatMap((f) =>
        importsOf(read(dist, f))
          .filter(isDemoOnly)
          .map((spec) => `${f}: ${spec}`),
      );
    expect(offenders).toEqual([]);
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
    for (const name of DEMO_ONLY) expect(existsSync(join(dir, 'node_modules', name)), name).toBe(false);
    writeFileSync(join(dir, 'gw.yaml'), 'agents:\n  a:\n    url: http://127.0.0.1:9101\n');
    const run = spawnSync(process.execPath, ['dist/cli.js', 'check-config', 'gw.yaml'], { cwd: dir, encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    // The image's layout (package.json beside dist/, as the last stage copies them): the CLI
    // finds its version there.
    const version = spawnSync(process.execPath, ['dist/cli.js', '--version'], { cwd: dir, encoding: 'utf8' });
    expect(version.stdout).toBe(`${pkg.version}\n`);
  }, 200_000);
});
