import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FindingSink, RULES, RULE_IDS } from '../../src/a2a/findings.js';

describe('findings table', () => {
  it('every rule has a stable dotted id, a section, a severity and one line of text', () => {
    for (const id of RULE_IDS) {
      const rule = RULES[id];
      expect(id).toMatch(/^(a2a|gateway|card)\.[a-z0-9-]+$/);
      expect(rule.section.length).toBeGreaterThan(2);
      expect(['error', 'warn', 'info']).toContain(rule.severity);
      expect(rule.description).toMatch(/^[A-Z].*\.$/);
      expect(rule.description).not.toContain('\n');
    }
  });

  it('every rule is raised somewhere in the gateway (no dead rules)', () => {
    const root = join(import.meta.dirname, '../../src');
    const sources = (readdirSync(root, { recursive: true }) as string[])
      .filter((f) => f.endsWith('.ts') && f !== join('a2a', 'findings.ts'))
      .map((f) => readFileSync(join(root, f), 'utf8'))
      .join('\n');
    const unused = RULE_IDS.filter((id) => !sources.includes(`'${id}'`));
    expect(unused).toEqual([]);
  });

  it('the sink keeps one entry per rule, counting repeats and keeping the first detail', () => {
    const sink = new FindingSink();
    sink.add('a2a.invalid-json', 'first');
    sink.add('a2a.invalid-json', 'second');
    sink.add('gateway.inspect-partial');
    expect(sink.list()).toEqual([
      { rule: 'a2a.invalid-json', count: 2, detail: 'first' },
      { rule: 'gateway.inspect-partial', count: 1 },
    ]);
    expect(sink.has('a2a.invalid-json')).toBe(true);
    expect(sink.has('a2a.jsonrpc-batch')).toBe(false);
  });
});
