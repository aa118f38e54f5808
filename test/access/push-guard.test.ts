// The push-notification webhook SSRF guard (issue #13 item 6): every spelling of a non-public address is
// refused with the exact rule; the allow list opens only what it names. DNS is injected, never real,
// except in the two tests at the end that need no resolution at all.
import { describe, expect, it, vi } from 'vitest';
import { PushGuard, type Lookup, type PushRule } from '../../src/access/push-guard.js';
import { allowEntryProblem } from '../../src/config/allow-entry.js';

/** Answers from a table; any other name fails the way getaddrinfo does. `hang` never answers. */
function fakeLookup(answers: Readonly<Record<string, readonly string[]>>): Lookup {
  return async (hostname) => {
    if (hostname === 'hang.example.com') return new Promise<readonly string[]>(() => {});
    const found = answers[hostname];
    if (found !== undefined) return found;
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  };
}

const DNS = {
  'evil.example.com': ['127.0.0.1'],
  'hooks.example.com': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
  'mixed.example.com': ['93.184.216.34', '10.0.0.7'],
  'metadata.google.internal': ['169.254.169.254'],
  'mapped.example.com': ['::ffff:10.0.0.9'],
  'empty.example.com': [],
  'garbage.example.com': ['not-an-ip'],
  'hooks.internal.example.com': ['10.0.0.5'],
  'ten.example.com': ['10.1.2.3'],
  'ten-and-loop.example.com': ['10.1.2.3', '127.0.0.1'],
};

function guard(allow: readonly string[] = [], lookup: Lookup = fakeLookup(DNS)): PushGuard {
  return new PushGuard({ allow, resolveTimeoutMs: 50, lookup });
}

async function ruleOf(g: PushGuard, url: string): Promise<PushRule | 'ok'> {
  const verdict = await g.check(url);
  return verdict.ok ? 'ok' : verdict.rule;
}

describe('PushGuard refuses', () => {
  it.each<[string, PushRule]>([
    ['http://169.254.169.254/latest/meta-data', 'push-url-address'],
    ['http://127.0.0.1:8080/', 'push-url-address'],
    ['http://0x7f000001/', 'push-url-address'],
    ['http://2130706433/', 'push-url-address'],
    ['http://0177.0.0.1/', 'push-url-address'],
    ['http://127.1/', 'push-url-address'],
    ['http://0x7f.1/', 'push-url-address'],
    ['http://%31%32%37.0.0.1/', 'push-url-address'],
    ['http://127.0.0.1./', 'push-url-address'],
    ['http://[::ffff:127.0.0.1]/', 'push-url-address'],
    ['http://[::ffff:7f00:1]/', 'push-url-address'],
    ['http://[::127.0.0.1]/', 'push-url-address'],
    ['http://[64:ff9b::7f00:1]/', 'push-url-address'],
    ['http://10.0.0.1/', 'push-url-address'],
    ['http://172.16.5.4/', 'push-url-address'],
    ['http://192.168.1.1/', 'push-url-address'],
    ['http://100.64.0.1/', 'push-url-address'],
    ['http://224.0.0.1/', 'push-url-address'],
    ['http://255.255.255.255/', 'push-url-address'],
    ['http://0.0.0.0/', 'push-url-address'],
    ['http://0/', 'push-url-address'],
    ['http://[::]/', 'push-url-address'],
    ['http://[::1]/', 'push-url-address'],
    ['http://[fe80::1]/', 'push-url-address'],
    ['http://[fd00:ec2::254]/', 'push-url-address'],
    ['http://localhost/', 'push-url-address'],
    ['http://LOCALHOST./', 'push-url-address'],
    ['http://foo.localhost/', 'push-url-address'],
    ['http://evil.example.com./', 'push-url-resolves-private'],
    ['https://mixed.example.com/hook', 'push-url-resolves-private'],
    ['http://metadata.google.internal/computeMetadata/v1/', 'push-url-resolves-private'],
    ['http://mapped.example.com/', 'push-url-resolves-private'],
    ['http://hang.example.com/', 'push-url-unresolvable'],
    ['http://nowhere.example.com/', 'push-url-unresolvable'],
    ['http://empty.example.com/', 'push-url-unresolvable'],
    ['http://garbage.example.com/', 'push-url-unresolvable'],
    ['ftp://example.com/', 'push-url-scheme'],
    ['file:///etc/passwd', 'push-url-scheme'],
    ['javascript:alert(1)', 'push-url-scheme'],
    ['not a url', 'push-url-invalid'],
    ['http://999.1.1.1/', 'push-url-invalid'],
    ['http://[fe80::1%25eth0]/', 'push-url-invalid'],
  ])('%s → %s', async (url, rule) => {
    expect(await ruleOf(guard(), url)).toBe(rule);
  });

  it('names the range and the normalised address, not the raw URL', async () => {
    expect(await guard().check('http://0x7f000001/?token=secret')).toEqual({
      ok: false,
      rule: 'push-url-address',
      message:
        'push notification URL names a loopback address (127.0.0.1); push webhooks must be public (pushNotifications.allow opens exceptions)',
    });
    const resolved = await guard().check('http://evil.example.com./');
    expect(resolved.ok === false && resolved.message).toBe(
      'push notification URL host evil.example.com resolves to a loopback address (127.0.0.1); push webhooks must be public (pushNotifications.allow opens exceptions)',
    );
  });

  it('names the cause when a host does not resolve', async () => {
    const timedOut = await guard().check('http://hang.example.com/');
    expect(timedOut.ok === false && timedOut.message).toContain('did not resolve within 50 ms');
    const missing = await guard().check('http://nowhere.example.com/');
    expect(missing.ok === false && missing.message).toContain('ENOTFOUND');
  });

  it('refuses IP literals and localhost names without asking DNS', async () => {
    const lookup = vi.fn(fakeLookup(DNS));
    const g = guard([], lookup);
    for (const url of ['http://127.0.0.1/', 'http://[::1]/', 'http://localhost/', 'http://a.b.localhost/']) {
      expect(await ruleOf(g, url)).toBe('push-url-address');
    }
    expect(lookup).not.toHaveBeenCalled();
  });

  it('refuses when a lookup throws synchronously', async () => {
    const lookup: Lookup = () => {
      throw new Error('resolver exploded');
    };
    expect(await ruleOf(guard([], lookup), 'http://hooks.example.com/')).toBe('push-url-unresolvable');
  });

  it('applies the scheme rule to allow-listed hosts and addresses too', async () => {
    const g = guard(['127.0.0.1/32', 'hooks.internal.example.com']);
    expect(await ruleOf(g, 'ftp://127.0.0.1/')).toBe('push-url-scheme');
    expect(await ruleOf(g, 'ws://hooks.internal.example.com/')).toBe('push-url-scheme');
  });
});

describe('PushGuard allows', () => {
  it('a public host name whose every address is public', async () => {
    expect(await guard().check('https://hooks.example.com/x')).toEqual({ ok: true });
  });

  it('public IP literals', async () => {
    expect(await ruleOf(guard(), 'http://93.184.216.34/')).toBe('ok');
    expect(await ruleOf(guard(), 'http://[2606:2800:220:1::]/')).toBe('ok');
  });

  it('an allow-listed loopback CIDR, including its IPv4-mapped spelling', async () => {
    const g = guard(['127.0.0.1/32']);
    expect(await ruleOf(g, 'http://127.0.0.1:9/')).toBe('ok');
    expect(await ruleOf(g, 'http://[::ffff:127.0.0.1]:9/')).toBe('ok');
    expect(await ruleOf(g, 'http://127.0.0.2:9/')).toBe('push-url-address');
    expect(await ruleOf(g, 'http://[::1]:9/')).toBe('push-url-address');
  });

  it('bare IPs and IPv6 CIDRs in the allow list', async () => {
    const g = guard(['::1', '192.168.1.1', 'fd00::/8']);
    expect(await ruleOf(g, 'http://[::1]/')).toBe('ok');
    expect(await ruleOf(g, 'http://192.168.1.1/')).toBe('ok');
    expect(await ruleOf(g, 'http://[fd00:ec2::254]/')).toBe('ok');
    expect(await ruleOf(g, 'http://192.168.1.2/')).toBe('push-url-address');
  });

  it('an IPv4-mapped CIDR entry as the IPv4 network it maps', async () => {
    expect(await ruleOf(guard(['::ffff:10.0.0.0/104']), 'http://10.9.9.9/')).toBe('ok');
  });

  it('an allow-listed host name without resolving it, whatever case or trailing dot', async () => {
    const lookup = vi.fn(fakeLookup(DNS));
    const g = guard(['Hooks.Internal.Example.com.'], lookup);
    expect(await ruleOf(g, 'http://hooks.internal.example.com/hook')).toBe('ok');
    expect(await ruleOf(g, 'http://HOOKS.internal.example.COM./hook')).toBe('ok');
    expect(lookup).not.toHaveBeenCalled();
    // Exact match only: a sub-domain is not covered.
    expect(await ruleOf(g, 'http://x.hooks.internal.example.com/')).toBe('push-url-unresolvable');
  });

  it('a resolved name only when every non-public address is in an allowed CIDR', async () => {
    const g = guard(['10.0.0.0/8']);
    expect(await ruleOf(g, 'http://ten.example.com/')).toBe('ok');
    expect(await ruleOf(g, 'http://mapped.example.com/')).toBe('ok');
    expect(await ruleOf(g, 'http://ten-and-loop.example.com/')).toBe('push-url-resolves-private');
    expect(await ruleOf(guard(), 'http://ten.example.com/')).toBe('push-url-resolves-private');
  });
});

describe('allowEntryProblem', () => {
  it.each(['10.1.0.0/16', '127.0.0.1/32', '::1/128', '127.0.0.1', '::1', 'hooks.example.com', 'HOOKS.example.com.'])(
    'accepts %s',
    (entry) => {
      expect(allowEntryProblem(entry)).toBeUndefined();
    },
  );

  it.each([
    '10.0.0.0/99',
    '',
    '   ',
    '127.1',
    '2130706433',
    '10.1/16',
    '*.example.com',
    'http://x.com',
    'a b',
    'fe80::zz',
  ])('refuses %j', (entry) => {
    expect(allowEntryProblem(entry)).toEqual(expect.any(String));
  });

  it('names the entry in the message', () => {
    expect(allowEntryProblem('10.0.0.0/99')).toContain('"10.0.0.0/99" is not a valid CIDR');
  });

  it('makes the constructor throw on a bad entry', () => {
    expect(() => new PushGuard({ allow: ['10.0.0.0/99'], resolveTimeoutMs: 50 })).toThrow(/pushNotifications\.allow/);
  });
});

describe('PushGuard with the system resolver', () => {
  it('refuses localhost by name', async () => {
    const g = new PushGuard({ allow: [], resolveTimeoutMs: 2000 });
    expect(await ruleOf(g, 'http://localhost:8080/hook')).toBe('push-url-address');
  });

  it('lets an allow-listed loopback address through', async () => {
    const g = new PushGuard({ allow: ['127.0.0.1/32'], resolveTimeoutMs: 2000 });
    expect(await g.check('http://127.0.0.1:8080/hook')).toEqual({ ok: true });
  });
});
