import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { normaliseTarget } from '../../src/bindings/http/target.js';

const ok = (rest: string) => {
  const t = normaliseTarget(rest);
  if (!t.ok) throw new Error(`refused ${rest}: ${t.why}`);
  return t.target;
};
const refused = (rest: string) => !normaliseTarget(rest).ok;

describe('request target normalisation (RFC 3986 §5.2.4)', () => {
  it('leaves ordinary A2A targets byte for byte', () => {
    for (const rest of [
      '/',
      '/a2a/jsonrpc',
      '/.well-known/agent-card.json',
      '/v1/message:send',
      '/tasks/abc%20def:subscribe?historyLength=3&x=..%2f',
      '/a//b',
      '/tasks/a.b.c',
      '/...',
    ]) {
      expect(ok(rest)).toBe(rest);
    }
  });

  it('resolves dot-segments that stay inside the agent, encoded or not', () => {
    expect(ok('/a/./b')).toBe('/a/b');
    expect(ok('/a/b/../c')).toBe('/a/c');
    expect(ok('/a/%2e%2E/c?q=1')).toBe('/c?q=1');
    expect(ok('/a/.%2e/c')).toBe('/c');
    expect(ok('/a/b/..')).toBe('/a/');
    expect(ok('/a/.')).toBe('/a/');
  });

  it('refuses a target that climbs above the agent', () => {
    for (const rest of ['/../admin/users', '/%2e%2e/admin', '/a/../../admin', '/.%2e/x', '/%2E./x', '/..']) {
      expect(refused(rest)).toBe(true);
    }
  });

  it('refuses backslashes, encoded NUL, control characters and dot-segments behind an encoded slash', () => {
    for (const rest of [
      '/a\\..\\admin',
      '/a%5c..%5cadmin',
      '/a%5Cb',
      '/a%00b',
      '/a\u0001b',
      '/..%2fadmin',
      '/a/.%2e%2F..',
    ]) {
      expect(refused(rest)).toBe(true);
    }
    expect(ok('/files/a%2fb')).toBe('/files/a%2fb'); // an encoded slash alone is the agent's business
  });

  const segment = fc.constantFrom('a', 'b.c', '.', '..', '%2e', '%2E%2e', '.%2e', 'x%2fy', '', '%41');
  const target = fc.array(segment, { maxLength: 8 }).map((s) => `/${s.join('/')}`);

  it('never forwards a dot-segment, and is idempotent', () => {
    fc.assert(
      fc.property(target, (rest) => {
        const t = normaliseTarget(rest);
        if (!t.ok) return;
        const segments = t.target.split('/').map((s) => s.replace(/%2e/gi, '.'));
        expect(segments.some((s) => s === '.' || s === '..')).toBe(false);
        expect(normaliseTarget(t.target)).toEqual(t);
      }),
      { numRuns: 2000 },
    );
  });

  it('refuses exactly the targets whose dot-segments climb above the root', () => {
    fc.assert(
      fc.property(target, (rest) => {
        let depth = 0;
        let climbs = false;
        const parts = rest.split('/').slice(1);
        parts.forEach((raw, i) => {
          const s = raw.replace(/%2e/gi, '.');
          if (s === '..') {
            if (depth === 0) climbs = true;
            else depth--;
          } else if (s !== '.' && !(s === '' && i === parts.length - 1)) depth++;
        });
        const hidden = parts.some(
          (p) => /%2f/i.test(p) && /(^|\/)\.\.?($|\/)/.test(p.replace(/%2e/gi, '.').replace(/%2f/gi, '/')),
        );
        expect(normaliseTarget(rest).ok).toBe(!climbs && !hidden);
      }),
      { numRuns: 2000 },
    );
  });
});
