// Each caller's share of an agent's unary calls (src/transport/client-shares.ts): a bounded
// count per caller, and memory only for callers with a call in flight.
import { afterAll, describe, expect, it } from 'vitest';
import { ClientShares, defaultCallsPerClient } from '../../src/transport/client-shares.js';
import { closeUpstream, createUpstream, type Upstream } from '../../src/transport/upstream.js';
import { parseConfig } from '../../src/config/load.js';

const made: Upstream[] = [];
afterAll(async () => {
  await Promise.all(made.map(closeUpstream));
});

describe('ClientShares', () => {
  it('takes up to the limit per caller, each caller apart', () => {
    const shares = new ClientShares(2);
    expect([shares.take('a'), shares.take('a'), shares.take('a')]).toEqual([true, true, false]);
    expect(shares.take('b')).toBe(true);
    expect(shares.of('a')).toBe(2);
    shares.release('a');
    expect(shares.take('a')).toBe(true);
  });

  it('forgets a caller when its last call ends, and ignores a release it never took', () => {
    const shares = new ClientShares(3);
    for (let i = 0; i < 1000; i++) shares.take(`10.0.${i >> 8}.${i & 255}`);
    expect(shares.callers).toBe(1000);
    for (let i = 0; i < 1000; i++) shares.release(`10.0.${i >> 8}.${i & 255}`);
    expect(shares.callers).toBe(0);
    shares.release('never');
    expect(shares.of('never')).toBe(0);
    expect(shares.callers).toBe(0);
  });

  it('defaults to half the agent’s connections, at least one; 0 turns it off', () => {
    expect(defaultCallsPerClient(256)).toBe(128);
    expect(defaultCallsPerClient(1)).toBe(1);
    const upstream = (agent: Record<string, unknown>) => {
      const u = createUpstream(
        'a',
        parseConfig(JSON.stringify({ agents: { a: { url: 'http://127.0.0.1:1', ...agent } } }), 'test', {}).agents.a!,
      );
      made.push(u);
      return u;
    };
    const limits = [upstream({}), upstream({ connections: 10 }), upstream({ limits: { callsPerClient: 0 } })];
    expect(limits.map((u) => u.shares?.limit)).toEqual([128, 5, undefined]);
    expect(upstream({ limits: { callsPerClient: 7 } }).shares?.limit).toBe(7);
  });
});
