/**
 * Task affinity's record (docs/fleet.md "Task affinity"): which replica each task and each
 * context (conversation) lives on, written when an answer first names it (the inspector, and
 * the timeout rescue's first reply) and read by placement.ts for every later call about it. A
 * pin never changes once written: the first replica wins, as the task's owner does
 * (src/tasks/story.ts). In this process (`MemoryPins`) or shared by every gateway process
 * (`RedisPins`, src/state/redis-pins.ts), bounded by `tasks.maxTracked` and `tasks.ttl`.
 */
import { LRUCache } from 'lru-cache';

export type PinKind = 'task' | 'context';

export interface Pins {
  /** Records that `id` lives on `replica` (its URL) unless pinned already; never waited for. */
  pin(agent: string, kind: PinKind, id: string, replica: string): void;
  /** The replica `id` lives on; undefined if never pinned or forgotten. Rejects with StoreUnavailable. */
  replicaOf(agent: string, kind: PinKind, id: string): Promise<string | undefined>;
  close(): Promise<void>;
}

export class MemoryPins implements Pins {
  /** `{kind} {agent} {id}` → replica URL. */
  private readonly entries: LRUCache<string, string>;

  constructor(limits: { maxTasks: number; ttlMs: number }) {
    this.entries = new LRUCache({ max: limits.maxTasks, ttl: limits.ttlMs });
  }

  pin(agent: string, kind: PinKind, id: string, replica: string): void {
    const key = `${kind}\u0000${agent}\u0000${id}`;
    if (!this.entries.has(key)) this.entries.set(key, replica);
  }

  replicaOf(agent: string, kind: PinKind, id: string): Promise<string | undefined> {
    return Promise.resolve(this.entries.get(`${kind}\u0000${agent}\u0000${id}`));
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
