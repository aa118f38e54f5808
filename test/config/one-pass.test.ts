/**
 * Config problems are reported all at once (issue #30): an unset `${VAR}`, a YAML syntax error and
 * schema problems in one list, sorted by key path, each with the value it got (a secret's never
 * shown), and an unknown key with the allowed key it is most likely a typo of.
 */
import { describe, expect, it } from 'vitest';
import { nearestKey } from '../../src/config/problems.js';
import { problems } from './problems.js';

const AGENT = 'agents:\n  a:\n    url: http://h:1\n';

describe('config problems, all in one pass', () => {
  it('an unset ${VAR} does not hide the schema problems, and its own key is not reported twice', () => {
    expect(
      problems(
        'listen: { port: 70000 }\nadmin: { token: "${ADMIN_TOKEN}" }\nagents:\n  a:\n    url: ftp://x\n    rateLimt: { requests: 1 }\n',
      ),
    ).toEqual([
      // The empty stand-in for ADMIN_TOKEN is shorter than 16 characters: that says nothing about the real token.
      'admin.token: environment variable ADMIN_TOKEN is not set',
      'agents.a.rateLimt: unknown key; did you mean `rateLimit`?',
      'agents.a.url: must be an absolute http:// or https:// URL (got "ftp://x")',
      'listen.port: Too big: expected number to be <=65535 (got 70000)',
    ]);
  });

  it('reports YAML syntax problems with the schema problems of what could be read', () => {
    const found = problems(
      `agents:\n  a:\n    url: http://h:1\n    timeouts: { connect: soon }\n  a:\n    url: http://h:2\n`,
    );
    expect(found[0]).toMatch(/^YAML syntax: Map keys must be unique at line 5, column 3$/);
    expect(found).toHaveLength(1);
    const both = problems(
      'listen: { port: x }\nlisten: { port: 1 }\nagents:\n  a:\n    url: http://h:1\n    colour: red\n',
    );
    expect(both[0]).toMatch(/^YAML syntax: Map keys must be unique/);
    expect(both.slice(1)).toEqual(['agents.a.colour: unknown key']);
  });

  it('sorts by key path, list indices as numbers', () => {
    const found = problems(
      'trustedProxies: [1.1.1.1, a, 2.2.2.2, 3.3.3.3, 4.4.4.4, 5.5.5.5, 6.6.6.6, 7.7.7.7, 8.8.8.8, 9.9.9.9, b]\nzzz: 1\nadmin: { listen: { port: -1 } }\n' +
        AGENT,
    );
    expect(found.map((p) => p.split(':')[0])).toEqual([
      'admin.listen.port',
      'trustedProxies[1]',
      'trustedProxies[10]',
      'zzz',
    ]);
  });

  it('shows the value a problem is about, shortened, and never a secret', () => {
    const long = 'x'.repeat(100);
    const [url] = problems(`agents:\n  a:\n    url: ${long}\n`);
    expect(url).toBe(`agents.a.url: must be an absolute http:// or https:// URL (got "${'x'.repeat(58)}…)`);
    expect(problems(`workers: lots\nstate: { store: redis, redis: { url: "${'{'}"} }\n${AGENT}`)).toEqual([
      expect.stringMatching(
        /^state\.redis\.url: must be a redis:\/\/ or rediss:\/\/ URL \(got a secret, 1 characters: not shown\)$/,
      ),
      expect.stringMatching(/^workers: .* \(got "lots"\)$/),
    ]);
    // A number is shown even where the message holds its digits.
    expect(
      problems(`listen: { port: 6 }\nadmin: { listen: { port: 6 } }\nlimits: { headerCount: 6 }\n${AGENT}`),
    ).toContain('limits.headerCount: Too small: expected number to be >=16 (got 6)');
    const secrets = problems(
      `admin: { token: short-secret }\nauth:\n  apiKeys:\n    k: { key: tiny-key }\n  pageTokenSecret: also-short\n${AGENT}`,
    ).join('\n');
    for (const secret of ['short-secret', 'tiny-key', 'also-short']) expect(secrets).not.toContain(secret);
    expect(secrets).toContain(
      'admin.token: must be at least 16 characters (e.g. `openssl rand -hex 32`) (got a secret, 12 characters: not shown)',
    );
  });

  it('suggests the nearest allowed key for a typo, at any depth, and nothing for a stranger', () => {
    expect(problems(`limts: {}\nlimits: { bodyByte: 1MiB }\n${AGENT}    timeouts: { conect: 1s }\n`)).toEqual([
      'agents.a.timeouts.conect: unknown key; did you mean `connect`?',
      'limits.bodyByte: unknown key; did you mean `bodyBytes`?',
      'limts: unknown key; did you mean `limits`?',
    ]);
    expect(problems(`${AGENT}    flavour: vanilla\n`)).toEqual(['agents.a.flavour: unknown key']);
    expect(nearestKey('ratelimit', ['rateLimit', 'limits'])).toBe('rateLimit');
    expect(nearestKey('tiemouts', ['timeouts'])).toBe('timeouts');
    expect(nearestKey('ab', ['auth'])).toBeUndefined();
  });
});
