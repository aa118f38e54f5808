/** Label values come from the closed sets declared beside their types: every member of each set
 * keeps its name (a member added to a set is a label at once), anything else is `other`. */
import { describe, expect, it } from 'vitest';
import { createLabeler, OTHER } from '../../../src/telemetry/metrics/labels.js';
import { BINDINGS, OPERATIONS, PROTOCOL_VERSIONS } from '../../../src/a2a/operations.js';
import { TASK_STATES } from '../../../src/a2a/task-state.js';
import { RULE_IDS } from '../../../src/a2a/findings.js';
import { GATEWAY_ERROR_REASONS } from '../../../src/errors/gateway-error.js';
import {
  ACCESS_DENIALS,
  EXCHANGE_KINDS,
  PUSH_REFUSALS,
  RESCUE_OUTCOMES,
  RESCUE_STRATEGIES,
  type A2AFacts,
} from '../../../src/exchange/record.js';

const labels = createLabeler(['reviewer']);
const facts = (partial: Partial<A2AFacts>) =>
  ({ binding: 'rest', version: '1.0', operation: 'GetTask', kind: 'task', partial: false, ...partial }) as A2AFacts;

describe('label sets', () => {
  it('keep every member of each closed set', () => {
    for (const binding of BINDINGS) expect(labels.binding(facts({ binding }))).toBe(binding);
    for (const version of PROTOCOL_VERSIONS) expect(labels.version(facts({ version }))).toBe(version);
    for (const kind of EXCHANGE_KINDS) expect(labels.kind(facts({ kind }))).toBe(kind);
    for (const op of OPERATIONS.filter((o) => o !== 'unknown'))
      expect(labels.method(facts({ operation: op }))).toBe(op);
    for (const state of TASK_STATES) expect(labels.taskState(state)).toBe(state);
    for (const rule of RULE_IDS) expect(labels.rule(rule)).toBe(rule);
    for (const reason of GATEWAY_ERROR_REASONS) expect(labels.reason(reason)).toBe(reason);
    for (const outcome of RESCUE_OUTCOMES) expect(labels.rescueOutcome(outcome)).toBe(outcome);
    for (const strategy of RESCUE_STRATEGIES) expect(labels.rescueStrategy(strategy)).toBe(strategy);
    for (const reason of ACCESS_DENIALS) expect(labels.denial(reason)).toBe(reason);
    for (const rule of PUSH_REFUSALS) expect(labels.pushRefusal(rule)).toBe(rule);
  });

  it('follow the configured agents through a reload', () => {
    const reloaded = createLabeler(['reviewer']);
    expect(reloaded.agent('runner')).toBe(OTHER);
    reloaded.setAgents(['runner']);
    expect(reloaded.agent('runner')).toBe('runner');
    expect(reloaded.agent('reviewer')).toBe(OTHER);
  });

  it('turn anything else into other', () => {
    const odd = 'made-up' as never;
    expect(labels.agent('nobody')).toBe(OTHER);
    expect(labels.binding(facts({ binding: odd }))).toBe(OTHER);
    expect(labels.version(facts({ version: odd }))).toBe(OTHER);
    expect(labels.kind(facts({ kind: odd }))).toBe(OTHER);
    expect(labels.method(facts({ operation: 'unknown' }))).toBe(OTHER);
    expect(labels.taskState('done')).toBe(OTHER);
    expect(labels.rule('a2a.made-up')).toBe(OTHER);
    expect(labels.reason('TEAPOT')).toBe(OTHER);
    expect(labels.rescueOutcome('maybe')).toBe(OTHER);
    expect(labels.rescueStrategy('hope')).toBe(OTHER);
    expect(labels.denial('bad-vibes')).toBe(OTHER);
    expect(labels.pushRefusal('push-url-ugly')).toBe(OTHER);
  });
});
