/**
 * What a finished call says about its replica (src/fleet/observer.ts `outcomeOf`), the passive
 * health signal: no connection, a reset and a 5xx are failures; an answer (4xx included) is a
 * success; a client that left, a timeout, or a call the gateway answered without the replica say
 * nothing.
 */
import { describe, expect, it } from 'vitest';
import { outcomeOf } from '../../src/fleet/observer.js';
import type { Exchange } from '../../src/exchange/exchange.js';
import type { ExchangeOutcome } from '../../src/exchange/record.js';

function exchange(outcome: ExchangeOutcome, replicaStatus?: number, reason?: string): Exchange {
  return {
    replicaStatus,
    record: { outcome, ...(reason ? { error: { reason, message: reason } } : {}) },
  } as unknown as Exchange;
}

describe('outcomeOf', () => {
  it.each([
    ['no connection', exchange('upstream-error', undefined, 'UPSTREAM_UNREACHABLE'), 'failure'],
    ['a reset mid-answer', exchange('upstream-error', 200, 'UPSTREAM_RESET'), 'failure'],
    ['a 503', exchange('complete', 503), 'failure'],
    ['a 500', exchange('complete', 500), 'failure'],
    ['a 200', exchange('complete', 200), 'ok'],
    ['a 404 (the caller asked for nothing there)', exchange('complete', 404), 'ok'],
    ['a 400', exchange('complete', 400), 'ok'],
    ['a gRPC answer (HTTP 200, any grpc-status)', exchange('complete', 200), 'ok'],
    ['the client left', exchange('client-gone', 503), undefined],
    [
      'a timeout (the client deadline, or a long task)',
      exchange('upstream-error', undefined, 'UPSTREAM_TIMEOUT'),
      undefined,
    ],
    ['the gateway answered without the replica', exchange('gateway-error', undefined, 'AGENT_BUSY'), undefined],
  ])('%s', (_what, ex, expected) => {
    expect(outcomeOf(ex)).toBe(expected);
  });
});
