/**
 * One agent's last hour, a slot per minute (src/console/stats.ts): a slot is reused, zeroed, when
 * its minute comes round again, so memory is fixed at 60 slots per agent however busy or quiet
 * it is, and recording an exchange is a few increments.
 */
import { LATENCY_BUCKETS } from './latency-histogram.js';
import type { ExchangeKind } from '../exchange/record.js';

export const WINDOW_MINUTES = 60;
export const MINUTE_MS = 60_000;

export interface MinuteSlot {
  /** Epoch minute the counts belong to (-1: never used). */
  minute: number;
  readonly kinds: Record<ExchangeKind, number>;
  /** Per A2A method (a closed set, src/a2a/operations.ts): counts per latency bucket. */
  readonly latency: Map<string, Uint32Array>;
  findings: number;
}

function emptySlot(): MinuteSlot {
  return { minute: -1, kinds: { message: 0, task: 0, error: 0, other: 0 }, latency: new Map(), findings: 0 };
}

export class MinuteRing {
  readonly slots: readonly MinuteSlot[] = Array.from({ length: WINDOW_MINUTES }, emptySlot);

  /** The slot of `minute`, zeroed first if it last held an older one. */
  at(minute: number): MinuteSlot {
    const slot = this.slots[minute % WINDOW_MINUTES]!;
    if (slot.minute !== minute) {
      slot.minute = minute;
      slot.kinds.message = slot.kinds.task = slot.kinds.error = slot.kinds.other = 0;
      slot.findings = 0;
      for (const counts of slot.latency.values()) counts.fill(0);
    }
    return slot;
  }

  /** The slot of `minute` if it holds that minute's counts (read-only: nothing is zeroed). */
  peek(minute: number): MinuteSlot | undefined {
    const slot = this.slots[minute % WINDOW_MINUTES]!;
    return slot.minute === minute ? slot : undefined;
  }

  /** The latency counters of `method` in `slot`, made on its first exchange. */
  static latencyOf(slot: MinuteSlot, method: string): Uint32Array {
    let counts = slot.latency.get(method);
    if (counts === undefined) slot.latency.set(method, (counts = new Uint32Array(LATENCY_BUCKETS)));
    return counts;
  }
}
