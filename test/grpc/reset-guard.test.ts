// The per-client premature-reset budget (src/bindings/grpc/reset-guard.ts): counted over a
// window, refused for a window once past it, and its memory bounded however many addresses reset.
import { describe, expect, it } from 'vitest';
import { ClientResetBudget } from '../../src/bindings/grpc/reset-guard.js';

describe('ClientResetBudget', () => {
  it('refuses a client past its budget for the window, then forgets it', () => {
    const budget = new ClientResetBudget(3, 10_000);
    for (let i = 0; i < 3; i++) expect(budget.charge('a', 1000)).toBe(false);
    expect(budget.refused('a', 1000)).toBe(false);
    expect(budget.charge('a', 1000)).toBe(true);
    expect(budget.refused('a', 5000)).toBe(true);
    expect(budget.refused('b', 5000)).toBe(false);
    expect(budget.refused('a', 11_001)).toBe(false);
    expect(budget.size).toBe(0);
  });

  it('starts a new count once the window has passed', () => {
    const budget = new ClientResetBudget(2, 10_000);
    budget.charge('a', 0);
    budget.charge('a', 0);
    expect(budget.charge('a', 10_001)).toBe(false);
  });

  it('remembers at most maxClients addresses', () => {
    const budget = new ClientResetBudget(5, 10_000, 100);
    for (let i = 0; i < 1000; i++) budget.charge(`10.0.${i >> 8}.${i & 255}`, 0);
    expect(budget.size).toBeLessThanOrEqual(100);
  });

  it('is off at 0', () => {
    const budget = new ClientResetBudget(0);
    expect(budget.enabled).toBe(false);
    for (let i = 0; i < 10; i++) expect(budget.charge('a')).toBe(false);
    expect(budget.size).toBe(0);
  });
});
