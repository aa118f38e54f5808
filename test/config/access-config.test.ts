/**
 * The access-control config contract (issue #13, "The configuration contract"): the example in
 * the issue parses as written, defaults are safe, and rules that cannot be enforced are refused
 * with the key path and what to do.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseConfig } from '../../src/config/load.js';
import { problems as problemsOf } from './problems.js';

/** The example, verbatim (its sha256 abbreviated with an ellipsis). */
const CONTRACT = `admin:
  listen: { host: 127.0.0.1, port: 9464 }   # /exchanges, /tasks, /metrics, the full catalog (and later the console)
  token: "\${ADMIN_TOKEN}"                    # optional bearer token for everything on the admin listener
auth:
  apiKeys:
    planner: { key: "\${PLANNER_KEY}", groups: [team-a] }
    ops-bot: { sha256: 04ed277…, groups: [ops] }
  jwt:                                        # optional
    issuer: https://idp.example.com
    audience: a2a-gateway
    jwksUrl: https://idp.example.com/.well-known/jwks.json
    principalClaim: sub
    groupsClaim: groups
pushNotifications:
  allow: [127.0.0.1/32, hooks.internal.example.com]
agents:
  code-reviewer:
    url: http://127.0.0.1:9101
    access:
      allow: [team-a, ops]            # principals or groups; absent = any authenticated caller
      methods: { CancelTask: [ops] }  # per-operation override (operation names as in the 1.0 spec)
      taskOwnership: true
      publicCard: true
    auth: { forward: false }
    rateLimit: { requests: 100, per: 1m, burst: 20 }
`;
const ENV = {
  ADMIN_TOKEN: 'admin-token-0123456789abcdef',
  PLANNER_KEY: 'planner-key-0123456789',
  PAGE_TOKEN_SECRET: 'page-token-secret-0123456789abcdef',
};
/** The example key of docs/configuration.md "Access control" (its digest is in the example). */
const EXAMPLE_KEY = 't3uMCo5eYnF3jenyJtxd6gLvc3J9uWE1';
const SHA256_OF_EXAMPLE = createHash('sha256').update(EXAMPLE_KEY).digest('hex'); // 04ed277…

const problems = (yaml: string, env: Record<string, string> = ENV) => problemsOf(yaml, env);

describe('access-control config contract', () => {
  it('parses the example as YAML exactly as written', () => {
    expect(() => parse(CONTRACT)).not.toThrow();
  });

  it('validates the example once the abbreviated digest is written out, and only that is refused verbatim', () => {
    expect(problems(CONTRACT)).toEqual([
      'auth.apiKeys.ops-bot.sha256: must be 64 hex digits (the SHA-256 of the key) (got "04ed277…")',
    ]);
    const config = parseConfig(CONTRACT.replace('04ed277…', SHA256_OF_EXAMPLE), 'gw.yaml', ENV);
    expect(config.admin).toEqual({ listen: { host: '127.0.0.1', port: 9464 }, token: ENV.ADMIN_TOKEN, hosts: [] });
    expect(config.auth!.apiKeys['planner']).toEqual({ key: ENV.PLANNER_KEY, groups: ['team-a'] });
    expect(config.auth!.jwt).toMatchObject({ principalClaim: 'sub', groupsClaim: 'groups', clockSkew: 30_000 });
    expect(config.pushNotifications).toMatchObject({
      guard: true,
      allow: ['127.0.0.1/32', 'hooks.internal.example.com'],
    });
    const agent = config.agents['code-reviewer']!;
    expect(agent.access).toEqual({
      allow: ['team-a', 'ops'],
      methods: { CancelTask: ['ops'] },
      taskOwnership: true,
      clientContextIds: false,
      publicCard: true,
    });
    expect(agent.auth).toEqual({ forward: false });
    expect(agent.rateLimit).toEqual({ requests: 100, per: 60_000, burst: 20 });
  });

  it('defaults: admin on loopback 9464 without token, no auth, push guard on, public cards', () => {
    const config = parseConfig('agents:\n  a:\n    url: http://h:1\n', 'gw.yaml', {});
    expect(config.admin).toEqual({ listen: { host: '127.0.0.1', port: 9464 }, hosts: [] });
    expect(config.auth).toBeUndefined();
    expect(config.pushNotifications).toEqual({ guard: true, allow: [], resolveTimeout: 2000 });
    expect(config.agents['a']!.access).toEqual({ methods: {}, clientContextIds: false, publicCard: true });
    expect(config.agents['a']!.rateLimit).toBeUndefined();
  });

  it('moves the old metrics.listen to admin.listen, and refuses both at once', () => {
    const url = 'agents:\n  a:\n    url: http://h:1\n';
    const moved = parseConfig(`metrics: { listen: { port: 9999 } }\n${url}`, 'gw.yaml', {});
    expect(moved.admin.listen).toEqual({ host: '127.0.0.1', port: 9999 });
    expect(problems(`metrics: { listen: { port: 9 } }\nadmin: { listen: { port: 8 } }\n${url}`, {})).toEqual([
      'metrics.listen: moved to `admin.listen`; give only that',
    ]);
  });

  it('refuses rules that cannot be enforced, naming the key and the fix', () => {
    const agent = (access: string) => `agents:\n  a:\n    url: http://h:1\n    access: ${access}\n`;
    expect(problems(agent('{ allow: [ops] }'), {})).toEqual([
      'agents.a.access: `allow` and `methods` need `auth:` (who the callers are)',
    ]);
    expect(problems(agent('{ taskOwnership: true }'), {})[0]).toMatch(
      /agents\.a\.access\.taskOwnership: needs `auth:`/,
    );
    expect(problems(agent('{ methods: { Cancel: [ops] } }'), {})).toContainEqual(
      expect.stringMatching(/^agents\.a\.access\.methods\.Cancel: not an A2A operation/),
    );
    const auth = 'auth:\n  apiKeys:\n    k: { key: "0123456789abcdef0" }\n';
    expect(problems(`${auth}inspection: { enabled: false }\nagents:\n  a:\n    url: http://h:1\n`, {})[0]).toMatch(
      /agents\.a\.access\.taskOwnership: needs `inspection.enabled`/,
    );
    expect(() =>
      parseConfig(
        `${auth}inspection: { enabled: false }\nagents:\n  a:\n    url: http://h:1\n    access: { taskOwnership: false }\n`,
        'gw.yaml',
        {},
      ),
    ).not.toThrow();
    // clientContextIds relaxes the context check of task ownership: meaningless without it.
    expect(problems(agent('{ clientContextIds: true }'), {})).toEqual([
      'agents.a.access.clientContextIds: relaxes task ownership: needs `auth:` and `taskOwnership` on (got true)',
    ]);
    expect(
      problems(
        `${auth}agents:\n  a:\n    url: http://h:1\n    access: { taskOwnership: false, clientContextIds: true }\n`,
        {},
      ),
    ).toEqual([
      'agents.a.access.clientContextIds: relaxes task ownership: needs `auth:` and `taskOwnership` on (got true)',
    ]);
    expect(() =>
      parseConfig(`${auth}agents:\n  a:\n    url: http://h:1\n    access: { clientContextIds: true }\n`, 'gw.yaml', {}),
    ).not.toThrow();
  });

  it('refuses weak or ambiguous credentials and bad allow-list entries', () => {
    const url = 'agents:\n  a:\n    url: http://h:1\n';
    expect(problems(`auth: {}\n${url}`, {})[0]).toMatch(/^auth: `auth` needs `apiKeys` or `jwt`/);
    expect(problems(`auth: { apiKeys: { k: { key: short } } }\n${url}`, {})[0]).toMatch(
      /auth\.apiKeys\.k\.key: must be at least 16/,
    );
    expect(
      problems(`auth: { apiKeys: { k: { key: "0123456789abcdef0", sha256: "${SHA256_OF_EXAMPLE}" } } }\n${url}`, {})[0],
    ).toMatch(/exactly one of `key` and `sha256`/);
    expect(problems(`admin: { token: short }\n${url}`, {})[0]).toMatch(/admin\.token: must be at least 16/);
    expect(
      problems(
        `auth: { jwt: { issuer: i, audience: a, jwksUrl: "http://i/j", secret: "${'s'.repeat(32)}" } }\n${url}`,
        {},
      )[0],
    ).toMatch(/exactly one of `jwksUrl`, `key` and `secret`/);
    expect(problems(`pushNotifications: { allow: [10.0.0.0/99] }\n${url}`, {})[0]).toMatch(
      /^pushNotifications\.allow\[0\]:/,
    );
    expect(problems(`${url}    rateLimit: { requests: 0 }\n`, {})[0]).toMatch(/agents\.a\.rateLimit\.requests/);
  });
});

describe('the docs/configuration.md "Access control" example', () => {
  it('is a valid config as printed', () => {
    const page = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
    const section = page.slice(page.indexOf('## Access control'));
    const yaml = /```yaml\n([\s\S]*?)```/.exec(section)?.[1];
    expect(yaml).toBeDefined();
    const config = parseConfig(yaml!, 'docs/configuration.md', ENV);
    // The digest is of the key the page names (and shows how to hash), not of a guessable word.
    expect(section).toContain(EXAMPLE_KEY);
    expect(section).toContain('printf %s "$KEY" | sha256sum');
    expect(config.auth!.apiKeys['ops-bot']!.sha256).toBe(SHA256_OF_EXAMPLE);
    expect(config.auth!.apiKeys['ops-bot']!.sha256).not.toBe(createHash('sha256').update('test').digest('hex'));
    expect(config.agents['code-reviewer']!.access.methods).toEqual({ CancelTask: ['ops'] });
    expect(config.auth!.pageTokenSecret).toBe(ENV.PAGE_TOKEN_SECRET);
  });
});

describe('config/access-control.yaml', () => {
  it('is a valid config with its environment set, and puts the demo fleet behind keys and rules', () => {
    const text = readFileSync(new URL('../../config/access-control.yaml', import.meta.url), 'utf8');
    const env = { ADMIN_TOKEN: 'a'.repeat(32), PLANNER_KEY: 'planner-key-0123456789', OPS_KEY: 'ops-key-0123456789' };
    const config = parseConfig(text, 'config/access-control.yaml', env);
    expect(Object.keys(config.auth!.apiKeys)).toEqual(['planner', 'ops-bot']);
    expect(config.agents['code-reviewer']!.access.methods).toEqual({ CancelTask: ['ops'] });
    expect(problems(text, {})[0]).toMatch(/environment variable ADMIN_TOKEN is not set/);
  });
});
