import { describe, expect, it } from 'vitest';
import { InFlight } from '../../src/exchange/in-flight.js';
import type { Exchange } from '../../src/exchange/exchange.js';

const exchange = (id: string) => ({ id }) as unknown as Exchange;

describe('InFlight', () => {
  it('holds what was added until its ticket is given back', () => {
    const inFlight = new InFlight();
    const a = exchange('a');
    const b = exchange('b');
    const ta = inFlight.add(a);
    const tb = inFlight.add(b);
    expect(inFlight.size).toBe(2);
    expect([...inFlight]).toEqual([a, b]);
    inFlight.delete(ta);
    expect(inFlight.size).toBe(1);
    expect([...inFlight]).toEqual([b]);
    inFlight.delete(tb);
    expect(inFlight.size).toBe(0);
    expect([...inFlight]).toEqual([]);
  });

  it('reuses the slots given back, so it grows only to the peak in flight', () => {
    const inFlight = new InFlight();
    const first = inFlight.add(exchange('a'));
    inFlight.delete(first);
    const again = inFlight.add(exchange('b'));
    expect(again).toBe(first);
    const tickets = Array.from({ length: 100 }, (_, i) => inFlight.add(exchange(String(i))));
    for (const t of tickets) inFlight.delete(t);
    inFlight.delete(again);
    for (let i = 0; i < 1000; i++) inFlight.delete(inFlight.add(exchange('c')));
    expect(Math.max(...Array.from({ length: 101 }, () => inFlight.add(exchange('d'))))).toBe(100);
  });

  it('ignores a ticket given back twice before its slot is reused', () => {
    const inFlight = new InFlight();
    const t = inFlight.add(exchange('a'));
    inFlight.delete(t);
    inFlight.delete(t);
    expect(inFlight.size).toBe(0);
    const u = inFlight.add(exchange('b'));
    const v = inFlight.add(exchange('c'));
    expect(new Set([u, v]).size).toBe(2);
    expect(inFlight.size).toBe(2);
  });
});
