/** A broken observer fails on every exchange: it is logged once per interval, with a count. */
import { describe, expect, it } from 'vitest';
import { observerFailureLog } from '../../src/exchange/observer-failures.js';
import type { ExchangeObserver } from '../../src/exchange/exchange.js';

describe('observer failure log', () => {
  it('logs the first failure of each observer and hook at once, then one line per interval with a count', () => {
    const lines: Record<string, unknown>[] = [];
    let now = 0;
    const failed = observerFailureLog({ error: (fields) => void lines.push(fields) }, 10_000, () => now);
    const broken: ExchangeObserver = { name: 'broken' };
    failed(broken, 'onFinish', new Error('x'));
    failed(broken, 'onForward', 'not an Error');
    for (let i = 0; i < 5; i++) failed(broken, 'onFinish', new Error('x'));
    expect(lines.map((l) => [l['hook'], l['unreported']])).toEqual([
      ['onFinish', undefined],
      ['onForward', undefined],
    ]);
    expect((lines[1]!['err'] as Error).message).toBe('not an Error');
    now = 10_000;
    failed(broken, 'onFinish', new Error('x'));
    expect(lines.at(-1)).toMatchObject({ observer: 'broken', hook: 'onFinish', unreported: 5 });
    failed({}, 'onFinish', new Error('y'));
    expect(lines.at(-1)).toMatchObject({ observer: 'observer', hook: 'onFinish' });
  });
});
