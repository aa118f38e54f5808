import { describe, expect, it } from 'vitest';
import { FindingSink } from '../../src/a2a/findings.js';
import { decideVersion, parseVersion, type VersionEvidence } from '../../src/a2a/version.js';

const none: VersionEvidence = {
  header: undefined,
  query: undefined,
  method: undefined,
  restPath: undefined,
  payload: undefined,
};

function decide(evidence: Partial<VersionEvidence>) {
  const findings = new FindingSink();
  const decision = decideVersion({ ...none, ...evidence }, findings);
  return { ...decision, rules: findings.list().map((f) => f.rule) };
}

describe('A2A-Version values (§3.6)', () => {
  it.each([
    ['1.0', '1.0', false],
    ['0.3', '0.3', false],
    ['1.0.0', '1.0', true],
    ['0.3.0', '0.3', true],
    [' 1.0 ', '1.0', false],
    ['01.00', '1.0', false],
    ['1.1', undefined, false],
    ['2.0', undefined, false],
    ['v1', undefined, false],
    ['', undefined, false],
  ])('%j → %s (patch %s)', (raw, version, hasPatch) => {
    expect(parseVersion(raw)).toEqual({ version, hasPatch });
  });
});

describe('deciding the version (wire-reference §1.4, §6.1)', () => {
  it('takes the header first, then the query parameter', () => {
    expect(decide({ header: '1.0', query: '0.3' })).toMatchObject({ version: '1.0', signal: 'header' });
    expect(decide({ header: '', query: '1.0' })).toMatchObject({ version: '1.0', signal: 'query' });
  });

  it('falls back to method name, REST path, payload, then 0.3', () => {
    expect(decide({ method: '0.3', restPath: '1.0', payload: '1.0' })).toMatchObject({
      version: '0.3',
      signal: 'jsonrpc-method',
    });
    expect(decide({ restPath: '0.3', payload: '1.0' })).toMatchObject({ version: '0.3', signal: 'rest-path' });
    expect(decide({ payload: '0.3' })).toMatchObject({ version: '0.3', signal: 'payload', rules: [] });
    expect(decide({})).toEqual({ version: '0.3', signal: 'default', rules: [] });
  });

  it('flags a 1.0 request without header, since servers must read it as 0.3 (§3.6.1)', () => {
    expect(decide({ method: '1.0' })).toEqual({
      version: '1.0',
      signal: 'jsonrpc-method',
      rules: ['a2a.version-header-missing'],
    });
  });

  it('flags patch numbers, unknown versions and disagreeing signals', () => {
    expect(decide({ header: '1.0.0' }).rules).toEqual(['a2a.version-patch-sent']);
    expect(decide({ header: '2.0', method: '1.0' })).toEqual({
      version: '1.0',
      signal: 'jsonrpc-method',
      rules: ['a2a.version-unknown', 'a2a.version-header-missing'],
    });
    expect(decide({ header: '1.0', restPath: '0.3' }).rules).toEqual(['a2a.version-signals-disagree']);
    expect(decide({ header: '0.3', payload: '0.3', method: '0.3' }).rules).toEqual([]);
  });
});
