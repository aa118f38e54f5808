/**
 * The last N finished exchanges, for `GET /exchanges`: what the gateway recorded about each call
 * (shape, task id, state, findings), without bodies. A ring buffer: memory is fixed by N.
 */
import type { ExchangeObserver } from '../exchange/exchange.js';
import type { ExchangeRecord } from '../exchange/record.js';

export interface RecentQuery {
  readonly agent?: string;
  readonly messageId?: string;
  readonly taskId?: string;
  readonly limit?: number;
}

export class RecentExchanges {
  private readonly ring: Array<ExchangeRecord | undefined>;
  private next = 0;

  constructor(readonly capacity: number) {
    this.ring = new Array<ExchangeRecord | undefined>(capacity);
  }

  readonly observer: ExchangeObserver = {
    name: 'recent-exchanges',
    onFinish: (exchange) => {
      if (this.capacity === 0) return;
      this.ring[this.next] = exchange.record;
      this.next = (this.next + 1) % this.capacity;
    },
  };

  /** The record with this id (src/exchange/exchange-id.ts) while it is in the ring: the console's detail view. */
  byId(id: string): ExchangeRecord | undefined {
    for (const record of this.ring) if (record?.id === id) return record;
    return undefined;
  }

  /** Newest first. */
  find(query: RecentQuery = {}): ExchangeRecord[] {
    const out: ExchangeRecord[] = [];
    const limit = Math.max(1, Math.min(query.limit ?? 50, this.capacity));
    for (let i = 1; i <= this.capacity && out.length < limit; i++) {
      const record = this.ring[(this.next - i + this.capacity) % this.capacity];
      if (!record) break;
      if (query.agent && record.agent !== query.agent) continue;
      if (query.messageId && record.a2a?.messageId !== query.messageId) continue;
      if (query.taskId && record.a2a?.taskId !== query.taskId) continue;
      out.push(record);
    }
    return out;
  }
}
