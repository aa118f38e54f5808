/**
 * API-key matching (issue #13 item 2): a key given as itself and one given as its SHA-256 both
 * match, clients stay distinct, and anything else matches nobody.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ApiKeys } from '../../src/access/api-keys.js';

const PLANNER_KEY = 'planner-key-0123456789abcdef';
const WRITER_KEY = 'writer-key-fedcba9876543210';
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

const keys = new ApiKeys({
  planner: { key: PLANNER_KEY, groups: ['planning', 'ops'] },
  writer: { sha256: sha256(WRITER_KEY), groups: [] },
});

describe('ApiKeys', () => {
  it('matches a key configured as itself', () => {
    expect(keys.match(PLANNER_KEY)).toEqual({ id: 'planner', groups: ['planning', 'ops'], via: 'api-key' });
  });

  it('matches a key configured as its SHA-256', () => {
    expect(keys.match(WRITER_KEY)).toEqual({ id: 'writer', groups: [], via: 'api-key' });
  });

  it('accepts the digest in upper case hex too', () => {
    const upper = new ApiKeys({ writer: { sha256: sha256(WRITER_KEY).toUpperCase(), groups: [] } });
    expect(upper.match(WRITER_KEY)?.id).toBe('writer');
  });

  it('keeps clients distinct', () => {
    expect(keys.match(PLANNER_KEY)?.id).toBe('planner');
    expect(keys.match(WRITER_KEY)?.id).toBe('writer');
  });

  it('matches nobody for a wrong key, a near miss, the digest itself or nothing', () => {
    expect(keys.match('wrong')).toBeUndefined();
    expect(keys.match(PLANNER_KEY + 'x')).toBeUndefined();
    expect(keys.match(PLANNER_KEY.slice(0, -1))).toBeUndefined();
    expect(keys.match(sha256(WRITER_KEY))).toBeUndefined();
    expect(keys.match('')).toBeUndefined();
  });

  it('matches nobody when no keys are configured', () => {
    expect(new ApiKeys({}).match(PLANNER_KEY)).toBeUndefined();
  });

  it('hands out principals that cannot be altered', () => {
    const principal = keys.match(PLANNER_KEY)!;
    expect(Object.isFrozen(principal)).toBe(true);
    expect(Object.isFrozen(principal.groups)).toBe(true);
  });

  it('refuses a config it cannot use', () => {
    expect(() => new ApiKeys({ a: { groups: [] } })).toThrow(/exactly one of key and sha256/);
    expect(() => new ApiKeys({ a: { key: 'k', sha256: sha256('k'), groups: [] } })).toThrow(/exactly one/);
    expect(() => new ApiKeys({ a: { key: '', groups: [] } })).toThrow(/empty/);
    expect(() => new ApiKeys({ a: { sha256: 'abc', groups: [] } })).toThrow(/64 hex digits/);
    expect(
      () => new ApiKeys({ a: { key: PLANNER_KEY, groups: [] }, b: { sha256: sha256(PLANNER_KEY), groups: [] } }),
    ).toThrow(/"a" and "b" are the same key/);
  });
});
