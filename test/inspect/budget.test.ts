import { describe, expect, it } from 'vitest';
import { HEAD_ONLY_BYTES, InspectionBudget } from '../../src/inspect/budget.js';

describe('inspection budget', () => {
  it('grants in full while there is room, then what is left, then the head-only floor', () => {
    const budget = new InspectionBudget(100 * 1024);
    expect(budget.reserve(64 * 1024)).toBe(64 * 1024);
    expect(budget.reserve(64 * 1024)).toBe(36 * 1024); // what is left
    expect(budget.reserve(64 * 1024)).toBe(HEAD_ONLY_BYTES); // exhausted: the floor, past the budget
    expect(budget.reserve(4 * 1024)).toBe(4 * 1024); // never more than asked
    expect(budget.reserve(0)).toBe(0);
    expect(budget.inUse).toBe(100 * 1024 + HEAD_ONLY_BYTES + 4 * 1024);
  });

  it('is back to zero once every grant is released', () => {
    const budget = new InspectionBudget(64 * 1024);
    const grants = [budget.reserve(48 * 1024), budget.reserve(48 * 1024), budget.reserve(1024)];
    for (const granted of grants) budget.release(granted);
    expect(budget.inUse).toBe(0);
    expect(budget.reserve(48 * 1024)).toBe(48 * 1024);
  });
});
