/**
 * The task store of one process (the default, `state.store: memory`): a Map used as an LRU with
 * a TTL, bounded by `tasks.maxTracked`. It records synchronously; the promises of the TaskStore
 * interface (tracker.ts) only hand the result over.
 */
import { advanceStory, countStory, newStory, type TaskCensus, type TaskEvent, type TaskSighting } from './story.js';
import type { Owners, TaskStore } from './tracker.js';
import type { TaskStory } from './story.js';

export interface TaskStoreLimits {
  readonly maxTasks: number;
  /** A story not seen for this long is forgotten. */
  readonly ttlMs: number;
}

const key = (agent: string, id: string) => `${agent}\u0000${id}`;

export class InMemoryTaskStore implements TaskStore {
  /** Map iteration order is insertion order: re-inserting on access makes it an LRU. */
  private readonly stories = new Map<string, TaskStory>();
  /** Context owners, bounded like the stories (same capacity and TTL, least recently seen first). */
  private readonly contexts = new Map<string, { readonly owner: string; lastSeen: number }>();

  constructor(private readonly limits: TaskStoreLimits) {}

  observe(agent: string, taskId: string, sighting: TaskSighting): Promise<TaskEvent[]> {
    const k = key(agent, taskId);
    const story = this.stories.get(k) ?? newStory(agent, taskId, sighting);
    this.stories.delete(k);
    this.stories.set(k, story);
    const events = advanceStory(story, sighting);
    events.push(...this.evict(sighting.at));
    return Promise.resolve(events);
  }

  get(agent: string, taskId: string): Promise<TaskStory | undefined> {
    return Promise.resolve(this.stories.get(key(agent, taskId)));
  }

  ownersOf(agent: string, taskIds: readonly string[]): Promise<Owners> {
    return Promise.resolve(new Map(taskIds.map((id) => [id, this.stories.get(key(agent, id))?.owner])));
  }

  claimContext(agent: string, contextId: string, principal: string, at: number): void {
    const k = key(agent, contextId);
    const known = this.contexts.get(k);
    this.contexts.delete(k);
    this.contexts.set(k, { owner: known?.owner ?? principal, lastSeen: Math.max(known?.lastSeen ?? at, at) });
    for (const [old, entry] of this.contexts) {
      if (this.contexts.size <= this.limits.maxTasks && at - entry.lastSeen < this.limits.ttlMs) break;
      this.contexts.delete(old);
    }
  }

  contextOwnersOf(agent: string, contextIds: readonly string[]): Promise<Owners> {
    const now = Date.now();
    const ownerOf = (id: string) => {
      const entry = this.contexts.get(key(agent, id));
      return entry && now - entry.lastSeen < this.limits.ttlMs ? entry.owner : undefined;
    };
    return Promise.resolve(new Map(contextIds.map((id) => [id, ownerOf(id)])));
  }

  census(_agents: readonly string[], now: number): Promise<{ census: TaskCensus; events: TaskEvent[] }> {
    const events = this.evict(now);
    const census: TaskCensus = new Map();
    for (const story of this.stories.values()) countStory(census, story);
    return Promise.resolve({ census, events });
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  private evict(now: number): TaskEvent[] {
    const events: TaskEvent[] = [];
    for (const [k, story] of this.stories) {
      const overCapacity = this.stories.size > this.limits.maxTasks;
      if (!overCapacity && now - story.lastSeen < this.limits.ttlMs) break; // oldest first: the rest are newer
      this.stories.delete(k);
      if (story.durationMs === undefined) events.push({ type: 'evicted', story });
    }
    return events;
  }
}
