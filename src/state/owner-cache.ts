/**
 * What one replica has learned from the shared store and can trust without asking again: the
 * owners of tasks and contexts (an owner never changes once recorded: the first caller wins) and
 * the tasks that have settled (a terminal story never changes again). Bounded and expiring with
 * `tasks.ttl` (lru-cache), so an entry lives no longer than the store keeps its story.
 */
import { LRUCache } from 'lru-cache';

export class OwnerCache {
  private readonly entries: LRUCache<string, string>;

  constructor(size: number, ttlMs: number) {
    this.entries = new LRUCache({ max: size, ttl: ttlMs });
  }

  get(agent: string, id: string): string | undefined {
    return this.entries.get(`${agent}\u0000${id}`);
  }

  /** Records `owner` unless one is known already (first caller wins, as in the store). */
  claim(agent: string, id: string, owner: string): void {
    const key = `${agent}\u0000${id}`;
    if (!this.entries.has(key)) this.entries.set(key, owner);
  }

  /** Records the owner the store answered with (it wins over a local claim). */
  set(agent: string, id: string, owner: string): void {
    this.entries.set(`${agent}\u0000${id}`, owner);
  }
}

/** Tasks whose story has settled in the store: a sighting of one changes nothing and is not sent. */
export class SettledTasks {
  private readonly entries: LRUCache<string, true>;

  constructor(size: number, ttlMs: number) {
    this.entries = new LRUCache({ max: size, ttl: ttlMs });
  }

  has(agent: string, taskId: string): boolean {
    return this.entries.has(`${agent}\u0000${taskId}`);
  }

  add(agent: string, taskId: string): void {
    this.entries.set(`${agent}\u0000${taskId}`, true);
  }
}
