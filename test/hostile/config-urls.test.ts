/**
 * Agent addresses check-config must refuse (issue #29, item 6): credentials in a gRPC address,
 * which a gRPC channel never sends and the catalog and logs would show, and a query or fragment
 * in an agent's base URL, which would end up inside the path of every call. Runs the built CLI.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'a2a-config-urls-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function checkConfig(agent: string): { status: number | null; stderr: string } {
  const file = join(dir, `${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(file, `agents:\n  a:\n${agent}`);
  const run = spawnSync(process.execPath, [CLI, 'check-config', file], { encoding: 'utf8', timeout: 10_000 });
  return { status: run.status, stderr: run.stderr + run.stdout };
}

describe('check-config refuses agent addresses that would leak or mislead', () => {
  it('a gRPC address with credentials', () => {
    const run = checkConfig('    url: http://127.0.0.1:9000\n    grpc: { url: "http://user:secret@127.0.0.1:9001" }\n');
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/agents\.a\.grpc\.url.*credentials/);
    expect(run.stderr).not.toContain('secret');
  });

  it('an agent URL with a query or a fragment, and an upstream with one', () => {
    for (const agent of [
      '    url: "http://127.0.0.1:9000/a2a?token=1"\n',
      '    url: "http://127.0.0.1:9000/a2a#x"\n',
      '    upstreams: ["http://127.0.0.1:9000/?x=1"]\n',
    ]) {
      const run = checkConfig(agent);
      expect(run.status, agent).toBe(1);
      expect(run.stderr, agent).toMatch(/query .*fragment/);
    }
  });

  it('still takes a plain agent URL and gRPC address', () => {
    expect(checkConfig('    url: http://127.0.0.1:9000/a2a/\n    grpc: { url: "127.0.0.1:9001" }\n').status).toBe(0);
  });
});
