// `--baseline-cli` (bench/README.md): the build before a change runs beside `gateway` in the same
// run, as the path `gateway@baseline` — chosen whatever --paths names, and only when asked for.
import { describe, expect, it } from 'vitest';
// @ts-expect-error: the bench harness is plain ESM JavaScript without types
import { selectPaths } from '../../bench/lib/setup.mjs';
// @ts-expect-error: the bench harness is plain ESM JavaScript without types
import { readOptions } from '../../bench/lib/options.mjs';

const names = (paths: { name: string }[]) => paths.map((p) => p.name);

describe('bench --baseline-cli', () => {
  it('adds gateway@baseline, from the other build, beside the paths named', () => {
    const opts = readOptions(['--paths', 'node,gateway', '--baseline-cli', '/tmp/before/dist/cli.js']);
    expect(opts.baselineCli).toBe('/tmp/before/dist/cli.js');
    const paths = selectPaths(opts, '/repo/dist/cli.js');
    expect(names(paths)).toEqual(['direct', 'node', 'gateway', 'gateway@baseline']);
    const baseline = paths.find((p: { name: string; label: string; kind: string }) => p.name === 'gateway@baseline');
    expect(baseline.label).toContain('/tmp/before/dist/cli.js');
    expect(baseline.kind).toBe('gateway');
  });

  it('runs no baseline unless asked for', () => {
    const opts = readOptions(['--paths', 'gateway']);
    expect(opts.baselineCli).toBeNull();
    expect(names(selectPaths(opts, '/repo/dist/cli.js'))).toEqual(['direct', 'gateway']);
  });
});
