/**
 * The owners (of tasks, of contexts) one replica has learned, so an ownership check asks Redis
 * only about the others. An owner never changes once recorded (the first caller wins), so a
 * cached one stays right until the store forgets the task: entries expire with `tasks.ttl`
 * and the least recently used go first past `size`.
 */
export class OwnerCache {
  /** Insertion order is the LRU order (re-inserted on use). */
  private readonly entries = new Map<string, { readonly owner: string; at: number }>();

  constructor(
    private readonly size: number,
    private readonly ttlMs: number,
  ) {}

  get(agent: string, id: string): string | undefined {
    const key = `${agent}\u0000${id}`;
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (Date.now() - entry.at >= this.ttlMs) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.owner;
  }

  /** Records `owner` unless one is known already (first caller wins, as in the store). */
  claim(agent: string, id: string, owner: string, at: number): void {
    const known = this.entries.get(`${agent}\u0000${id}`);
    this.set(agent, id, known?.owner ?? owner, at);
  }

  /** Records the owner the store answered with (it wins over a local claim). */
  set(agent: string, id: string, owner: string, at: number): void {
    const key = `${agent}\u0000${id}`;
    this.entries.delete(key);
    this.entries.set(key, { owner, at });
    if (this.entries.size > this.size) this.entries.delete(this.entries.keys().next().value!);
  }
}
