/**
 * The exchanges in flight on one config generation: what graceful shutdown waits for and a
 * retired generation is released after (src/reload/generations.ts).
 *
 * Not a `Set`. Every request joins and leaves, and a JS Set under that churn builds a new hash
 * table every few dozen operations. Measured on the bench's unary load (bench/ANALYSIS.md,
 * "The in-flight set"): with a Set, about 2 MB of every young-generation collection's survivors
 * were promoted to the old generation, whole request graphs, with 3 ms scavenges and repeated
 * full collections; with these slots 15 KB and 0.8 ms, and ~15 % less CPU per request. The
 * likely cause is the discarded tables: once one has been promoted, its stale entries keep the
 * young exchanges they point at alive through the next scavenge. Here one array grows to the
 * peak concurrency and its slots are overwritten in place; a slot's number is the ticket.
 */
import type { Exchange } from './exchange.js';

export class InFlight {
  private readonly slots: Array<Exchange | undefined> = [];
  /** Slot numbers free for reuse (small integers: no references for the collector to follow). */
  private readonly free: number[] = [];
  private count = 0;

  /** Adds an exchange; the returned ticket removes it. */
  add(exchange: Exchange): number {
    const slot = this.free.pop() ?? this.slots.length;
    this.slots[slot] = exchange;
    this.count++;
    return slot;
  }

  /** Removes the exchange `add` gave this ticket for. Give a ticket back once: its slot may then hold another. */
  delete(ticket: number): void {
    if (this.slots[ticket] === undefined) return;
    this.slots[ticket] = undefined;
    this.free.push(ticket);
    this.count--;
  }

  get size(): number {
    return this.count;
  }

  *[Symbol.iterator](): IterableIterator<Exchange> {
    for (const exchange of this.slots) if (exchange !== undefined) yield exchange;
  }
}
