import { describe, expect, it } from 'vitest';
import { randomFillSync } from 'node:crypto';
import { isValidSpanId, isValidTraceId } from '@opentelemetry/api';
import { ExchangeIdSource } from '../../../src/telemetry/tracing/trace-ids.js';

describe('exchange ids', () => {
  it('are valid W3C ids, distinct across blocks of random bytes', () => {
    const source = new ExchangeIdSource();
    const seen = new Set<string>();
    for (let i = 0; i < 1000; i++) {
      const { traceId, serverSpanId, clientSpanId } = source.draw();
      expect(isValidTraceId(traceId), traceId).toBe(true);
      expect(isValidSpanId(serverSpanId), serverSpanId).toBe(true);
      expect(isValidSpanId(clientSpanId), clientSpanId).toBe(true);
      for (const id of [traceId, serverSpanId, clientSpanId]) seen.add(id);
    }
    expect(seen.size).toBe(3000);
  });

  it('never hands out an all-zero id: such a draw is replaced', () => {
    let blocks = 0;
    // The first block of random bytes is all zeros: every draw from it is invalid.
    const source = new ExchangeIdSource((block) => void (blocks++ === 0 ? block.fill(0) : randomFillSync(block)));
    const first = source.draw();
    expect(blocks).toBe(2);
    expect([
      isValidTraceId(first.traceId),
      isValidSpanId(first.serverSpanId),
      isValidSpanId(first.clientSpanId),
    ]).toEqual([true, true, true]);
  });
});
