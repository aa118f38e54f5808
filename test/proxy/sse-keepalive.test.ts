/**
 * Where a relayed SSE stream stands (src/bindings/http/sse-keepalive.ts), from the last bytes only: a
 * boundary split over chunks is still seen, and no chunk is kept.
 */
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { ExchangeRecord } from '../../src/exchange/record.js';
import { SseKeepalive } from '../../src/bindings/http/sse-keepalive.js';

function stream(...chunks: string[]): SseKeepalive {
  const s = new SseKeepalive({} as ServerResponse, {} as ExchangeRecord);
  for (const c of chunks) s.refresh(Buffer.from(c));
  return s;
}

describe('SseKeepalive position', () => {
  it('stands between events before any byte and after a blank line', () => {
    expect(stream().atEventBoundary).toBe(true);
    expect(stream('data: x\n\n').atEventBoundary).toBe(true);
    expect(stream('data: x\r\n\r\n').atEventBoundary).toBe(true);
    expect(stream('data: x\r\r').atEventBoundary).toBe(true);
  });

  it('is inside an event mid-line or after one line end', () => {
    expect(stream('data: x').atEventBoundary).toBe(false);
    expect(stream('data: x\n').atEventBoundary).toBe(false);
    expect(stream('data: x\n').atLineEnd).toBe(true);
    expect(stream('data: x').atLineEnd).toBe(false);
  });

  it('sees a blank line split over short chunks', () => {
    expect(stream('data: x\n', '\n').atEventBoundary).toBe(true);
    expect(stream('data: x\r', '\n', '\r', '\n').atEventBoundary).toBe(true);
    expect(stream('data: x\r\n\r', '\n').atEventBoundary).toBe(true);
    expect(stream('data: x\n\n', 'da').atEventBoundary).toBe(false);
    expect(stream('data: x\n\n', 'd', '\n').atEventBoundary).toBe(false);
  });
});
