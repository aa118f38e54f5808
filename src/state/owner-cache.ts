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

/**
 * Tasks whose story has settled in the store, each with whether its last visit is known shown: a
 * sighting of one changes nothing and is not sent — unless it is shown and the settled visit is
 * not known shown (the rescue saw it settle, then its answer showed it: src/tasks/story.ts).
 */
export class SettledTasks {
  private readonly entries: LRUCache<string, boolean>;

  constructor(size: number, ttlMs: number) {
    this.entries = new LRUCache({ max: size, ttl: ttlMs });
  }

  /** True when a sighting (`shown` or not) of the task cannot change its story. */
  covers(agent: string, taskId: string, shown: boolean): boolean {
    const lastShown = this.entries.get(`${agent}\u0000${taskId}`);
    return lastShown !== undefined && (lastShown || !shown);
  }

  add(agent: string, taskId: string, lastShown: boolean): void {
    this.entries.set(`${agent}\u0000${taskId}`, lastShown);
  }
}
