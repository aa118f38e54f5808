/**
 * A secret that still holds a template's placeholder word is refused (issue #30): the example's
 * token would otherwise open the gateway to whoever read the example.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseConfig } from '../../src/config/load.js';
import { problems } from './problems.js';

const AGENT = 'agents:\n  a:\n    url: http://h:1\n';
const ROOT = new URL('../../', import.meta.url);

describe('placeholder secrets', () => {
  it.each([
    ['admin.token', `admin: { token: "\${T}" }\n${AGENT}`],
    ['auth.apiKeys.k.key', `auth:\n  apiKeys:\n    k: { key: "\${T}" }\n${AGENT}`],
    [
      'auth.pageTokenSecret',
      `auth:\n  apiKeys:\n    k: { key: 0123456789abcdef }\n  pageTokenSecret: "\${T}"\n${AGENT}`,
    ],
    ['auth.jwt.secret', `auth:\n  jwt: { issuer: i, audience: a, secret: "\${T}" }\n${AGENT}`],
    ['agents.a.headers.Authorization', `${AGENT}    headers: { Authorization: "Bearer \${T}" }\n`],
    ['state.redis.url', `state: { store: redis, redis: { url: "redis://:\${T}@redis:6379" } }\n${AGENT}`],
  ])('refuses a placeholder in %s', (key, text) => {
    for (const placeholder of [
      'replace-me-with-openssl-rand-hex-32',
      'CHANGEME-0123456789abcdef0123456789',
      'change_me_please_0123456789abcdef0',
    ]) {
      const found = problems(text, { T: placeholder });
      expect(found).toEqual([
        expect.stringMatching(new RegExp(`^${key.replaceAll('.', '\\.')}: is a placeholder \\(it contains "`)),
      ]);
      expect(found[0]).not.toContain(placeholder);
    }
  });

  it('takes real secrets, and placeholder words in keys that are not secrets', () => {
    const config = parseConfig(`admin: { token: "\${T}" }\n${AGENT}    cardPath: /replace-me/card.json\n`, 'gw.yaml', {
      T: '3f6c0a1e9b7d4c2a8e5f1b0d7c3a9e6f',
    });
    expect(config.admin.token).toBe('3f6c0a1e9b7d4c2a8e5f1b0d7c3a9e6f');
  });

  it('refuses the Kubernetes Secret as shipped: the operator sets its values', () => {
    const secret = parse(readFileSync(new URL('deploy/kubernetes/base/secret.yaml', ROOT), 'utf8')) as {
      stringData: Record<string, string>;
    };
    const gateway = readFileSync(new URL('deploy/kubernetes/base/gateway.yaml', ROOT), 'utf8');
    expect(problems(gateway, secret.stringData)).toEqual([
      expect.stringMatching(/^admin\.token: is a placeholder/),
      expect.stringMatching(/^agents\.example-agent\.headers\.Authorization: is a placeholder/),
    ]);
  });

  it('starts docker compose with its development token, which is no placeholder', () => {
    const token = readFileSync(new URL('deploy/compose/admin-token', ROOT), 'utf8').trim();
    const gateway = readFileSync(new URL('deploy/compose/gateway.yaml', ROOT), 'utf8');
    expect(parseConfig(gateway, 'gateway.yaml', { ADMIN_TOKEN: token }).admin.token).toBe(token);
  });
});
