/**
 * `a2a-gateway check-config FILE` reports every problem of a config in one run (issue #30): an
 * unset variable, a typo, a refused size unit, a placeholder secret, an access name that matches
 * nobody and a port two listeners share, sorted by key path, and exits 1. Runs the built CLI
 * (`npm run build` first).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'a2a-check-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function checkConfig(text: string, env: Record<string, string> = {}) {
  const file = join(dir, `${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(file, text);
  const run = spawnSync(process.execPath, [CLI, 'check-config', file], {
    encoding: 'utf8',
    timeout: 10_000,
    env: { PATH: process.env['PATH'] ?? '', ...env },
  });
  return { file, status: run.status, stdout: run.stdout, stderr: run.stderr };
}

const BROKEN = `listen: { port: 9000 }
admin:
  listen: { port: 9000 }
  token: "\${ADMIN_TOKEN}"
limits: { bodyBytes: 1KB }
auth:
  apiKeys:
    planner: { key: "\${PLANNER_KEY}", groups: [team-a] }
agents:
  reviewer:
    url: http://127.0.0.1:9101
    rateLimt: { requests: 10 }
    access: { allow: [team-b] }
`;

describe('check-config', () => {
  it('lists every problem at once, sorted by key path, and exits 1', () => {
    const run = checkConfig(BROKEN, { PLANNER_KEY: 'replace-me-with-a-key' });
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      [
        `a2a-gateway: invalid config ${run.file} (6 problems):`,
        '  - admin.listen.port: port 9000 is already `listen.port`',
        '  - admin.token: environment variable ADMIN_TOKEN is not set',
        '  - agents.reviewer.access.allow[0]: "team-b" is neither an `auth.apiKeys` client nor a group of one (known: planner, team-a)',
        '  - agents.reviewer.rateLimt: unknown key; did you mean `rateLimit`?',
        '  - auth.apiKeys.planner.key: is a placeholder (it contains "replace-me"): set the real secret, e.g. `openssl rand -hex 32`',
        '  - limits.bodyBytes: "1KB" is not a size: write 1KiB (KiB = 1024 bytes; the units are B, KiB, MiB, GiB)',
        '',
      ].join('\n'),
    );
  });

  it('exits 0 once they are fixed', () => {
    const fixed = BROKEN.replace('port: 9000 }\n  token', 'port: 9464 }\n  token')
      .replace('1KB', '1KiB')
      .replace('rateLimt', 'rateLimit')
      .replace('team-b', 'team-a');
    const run = checkConfig(fixed, { PLANNER_KEY: '5b0e7c1d9a3f4e2b8c6d', ADMIN_TOKEN: '0d1e2f3a4b5c6d7e8f9a' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/: valid \(1 agents: reviewer\)\n$/);
  });
});
