import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { parseDuration } from '../../src/config/duration.js';
import { problems } from './problems.js';

describe('config', () => {
  it('fills defaults: no time limit on answers or streams, a connect timeout, default card path', () => {
    const config = parseConfig('agents:\n  a:\n    url: http://127.0.0.1:9101/\n', 'gw.yaml', {});
    expect(config.listen).toEqual({ host: '127.0.0.1', port: 8080 });
    expect(config.agents['a']).toMatchObject({
      url: 'http://127.0.0.1:9101',
      cardPath: '/.well-known/agent-card.json',
      timeouts: { connect: 10_000, headers: 0, bodyIdle: 0 },
      headers: {},
    });
    expect(config.shutdown.grace).toBe(10_000);
  });

  it('bounds inspection across exchanges: budgetBytes defaults to 64 MiB and takes sizes', () => {
    const url = 'agents:\n  a:\n    url: http://h:1\n';
    expect(parseConfig(url, 'gw.yaml', {}).inspection.budgetBytes).toBe(64 * 1024 * 1024);
    expect(parseConfig(`inspection: { budgetBytes: 256KiB }\n${url}`, 'gw.yaml', {}).inspection.budgetBytes).toBe(
      256 * 1024,
    );
    expect(problems(`inspection: { budgetBytes: lots }\n${url}`)[0]).toMatch(/inspection\.budgetBytes/);
  });

  it('substitutes ${ENV} in values, with $${X} as a literal', () => {
    const config = parseConfig(
      'agents:\n  a:\n    url: http://h:1\n    headers: { Authorization: "Bearer ${TOKEN}", X-Lit: "$${TOKEN}" }\n',
      'gw.yaml',
      { TOKEN: 's3cret' },
    );
    expect(config.agents['a']!.headers).toEqual({ Authorization: 'Bearer s3cret', 'X-Lit': '${TOKEN}' });
  });

  it('names the key path of a missing environment variable', () => {
    expect(problems('agents:\n  a:\n    url: http://h:1\n    headers: { Authorization: "Bearer ${NOPE}" }\n')).toEqual([
      'agents.a.headers.Authorization: environment variable NOPE is not set',
    ]);
  });

  it('reports every problem with its key path', () => {
    const found = problems(
      'listen: { port: 70000 }\nagents:\n  a:\n    url: ftp://x\n    timeouts: { connect: soon }\n    colour: red\n',
    );
    expect(found).toContain('agents.a.url: must be an absolute http:// or https:// URL (got "ftp://x")');
    expect(found.some((p) => p.startsWith('listen.port:'))).toBe(true);
    expect(found.some((p) => p.startsWith('agents.a.timeouts.connect: "soon" is not a duration'))).toBe(true);
    expect(found.some((p) => p.startsWith('agents.a') && p.includes('colour'))).toBe(true);
  });

  it('rejects an agent name that is not one path segment', () => {
    expect(problems('agents:\n  "a/b":\n    url: http://h:1\n')).toEqual([
      expect.stringMatching(/^agents\.a\/b: an agent name is one URL path segment/),
    ]);
  });

  it('rejects an empty fleet and YAML syntax errors', () => {
    expect(problems('agents: {}\n')).toEqual(['agents: at least one agent is required']);
    expect(problems('agents: [\n')[0]).toMatch(/^YAML syntax/);
  });

  it('accepts the timeout rescue under its old key upgradeBlocking, but not both keys at once', () => {
    const config = parseConfig(
      'agents:\n  a:\n    url: http://h:1\n    upgradeBlocking: { enabled: true, margin: 2s }\n',
      'gw.yaml',
      {},
    );
    expect(config.agents['a']!.timeoutRescue).toMatchObject({ enabled: true, margin: 2000, clientTimeout: 30_000 });
    expect(problems('agents:\n  a:\n    url: http://h:1\n    upgradeBlocking: {}\n    timeoutRescue: {}\n')).toEqual([
      'agents.a.upgradeBlocking: renamed to `timeoutRescue`; give only `timeoutRescue`',
    ]);
  });

  it('fills the client limits, takes sizes with units, and names a bad size', () => {
    const config = parseConfig(
      'limits: { bodyBytes: 2MiB, headerBytes: 8KiB }\nagents:\n  a:\n    url: http://h:1\n',
      'gw.yaml',
      {},
    );
    expect(config.limits).toMatchObject({ bodyBytes: 2 * 1024 ** 2, headerBytes: 8192, headerCount: 200 });
    expect(config.limits).toMatchObject({ headersTimeout: 10_000, bodyIdle: 30_000, requestTimeout: 300_000 });
    expect(config.limits).toMatchObject({ connections: 20_000, connectionsPerClient: 0 });
    expect(problems('limits: { bodyBytes: 3XB }\nagents:\n  a:\n    url: http://h:1\n')).toEqual([
      'limits.bodyBytes: "3XB" is not a size (use bytes, or B, KiB, MiB, GiB: 512B, 64KiB, 32MiB, 1GiB)',
    ]);
  });

  it('refuses credentials in an agent url: they belong in headers', () => {
    expect(problems('agents:\n  a:\n    url: http://admin:pa55word@h:1\n')).toEqual([
      // The value is shown without its credentials.
      'agents.a.url: must not hold credentials (user:password@): give them as headers, e.g. headers: { Authorization: … } (got "http://…@h:1")',
    ]);
  });

  it('parses durations', () => {
    expect(parseDuration('500ms')).toBe(500);
    expect(parseDuration('30s')).toBe(30_000);
    expect(parseDuration('2m')).toBe(120_000);
    expect(parseDuration('1.5h')).toBe(5_400_000);
    expect(parseDuration('none')).toBe(0);
    expect(parseDuration(250)).toBe(250);
    expect(parseDuration('10 minutes')).toMatch(/not a duration/);
    expect(parseDuration(-1)).toMatch(/non-negative/);
  });
});
