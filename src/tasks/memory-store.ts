/**
 * The task store of one process (the default, `state.store: memory`): two lru-caches (stories
 * and context owners), each bounded by `tasks.maxTracked` with the TTL `tasks.ttl`. It records
 * synchronously; the promises of the TaskStore interface (tracker.ts) only hand the result over.
 *
 * How the caches are set up, and why (each differs from lru-cache's defaults on purpose):
 * - Age is measured on the times the store is told — a sighting's `at`, a claim's `at`, a
 *   census's `now` — not on lru-cache's own clock, as the Redis store does (its scripts get the
 *   same times, src/state/redis-scripts.ts), so both forget the same stories and a test can say
 *   when. `perf` is that clock; `ttlResolution: 0` because lru-cache would otherwise cache a
 *   reading for 1 ms behind a timer, and this clock is a field read that moves with each call.
 * - An entry's age starts at its story's `lastSeen` (the latest sighting, which may be later than
 *   the sighting being recorded), set again on every observation: recency is "last seen".
 * - Reads (`get`, `ownersOf`, `contextOwnersOf`) `peek`: they neither make an entry recent nor
 *   renew its age, as before (only an answer naming the task keeps it).
 * - No `ttlAutopurge` (a timer per entry): an expired entry is dropped when it is next looked at
 *   and at each census (`purgeStale`, at scrape time, which walks every story anyway). lru-cache
 *   counts an entry expired once its age exceeds the TTL, the Redis scripts once it reaches it:
 *   the two differ only at that one millisecond.
 * - `dispose` turns what lru-cache drops ('evict': over capacity; 'expire': past the TTL) into
 *   the `evicted` events of an unfinished story, handed back with the call that dropped it.
 *
 * Cost (a tsx loop of 1M observations over 50k–150k tasks, `maxTracked` 100k, one context claim
 * per four): 2–7 µs an observation, where the Map it replaced took 40–100 µs (its sweep iterated
 * from the Map's front, past the holes every delete-and-reinsert left there). lru-cache allocates
 * its slots up front: ~8 MB for the two caches at the default 100k, ~80 bytes per slot.
 */
import { LRUCache } from 'lru-cache';
import { advanceStory, countStory, newStory, type TaskCensus, type TaskEvent, type TaskSighting } from './story.js';
import { addRefusal, type Refusal } from './refusal.js';
import type { Owners, StaleTask, TaskStore } from './tracker.js';
import type { TaskStory } from './story.js';

export interface TaskStoreLimits {
  readonly maxTasks: number;
  /** A story not seen for this long is forgotten. */
  readonly ttlMs: number;
  /** An unfinished story not seen for this long is counted unobserved (story.ts TaskCensus); default 5 min. */
  readonly unobservedAfterMs?: number;
}

interface ContextOwner {
  readonly owner: string;
  readonly lastSeen: number;
}

/** `tasks.unobservedAfter`'s default, for stores made without the config (tests, embedders). */
export const UNOBSERVED_AFTER_MS = 5 * 60_000;

const key = (agent: string, id: string) => `${agent}\u0000${id}`;

/** lru-cache's `perf`: the time of the call being served (see the file's header). */
class CallClock {
  now = 0;
  readonly perf = { now: () => this.now };
}

export class InMemoryTaskStore implements TaskStore {
  private readonly storyClock = new CallClock();
  private readonly contextClock = new CallClock();
  /** Unfinished stories the caches dropped during the current call, for its result. */
  private dropped: TaskEvent[] = [];
  private readonly stories: LRUCache<string, TaskStory>;
  /** Context owners, bounded like the stories (same capacity and TTL, least recently seen first). */
  private readonly contexts: LRUCache<string, ContextOwner>;

  private readonly unobservedAfterMs: number;
  private readonly pickClock = new CallClock();
  /** Tasks picked for confirmation, each kept `unobservedAfter` so it is not picked again sooner. */
  private readonly picked: LRUCache<string, true>;

  constructor(limits: TaskStoreLimits) {
    this.unobservedAfterMs = limits.unobservedAfterMs ?? UNOBSERVED_AFTER_MS;
    const options = { max: limits.maxTasks, ttl: limits.ttlMs, ttlResolution: 0 };
    this.stories = new LRUCache({ ...options, perf: this.storyClock.perf, dispose: this.onDropped });
    this.contexts = new LRUCache({ ...options, perf: this.contextClock.perf });
    const pickTtl = { ttl: this.unobservedAfterMs, ttlResolution: 0, perf: this.pickClock.perf };
    this.picked = new LRUCache({ max: limits.maxTasks, ...pickTtl });
  }

  observe(agent: string, taskId: string, sighting: TaskSighting): Promise<TaskEvent[]> {
    this.storyClock.now = sighting.at;
    const k = key(agent, taskId);
    const story = this.stories.get(k) ?? newStory(agent, taskId, sighting);
    const events = advanceStory(story, sighting);
    this.stories.set(k, story, { start: story.lastSeen });
    if (this.dropped.length > 0) events.push(...this.takeDropped());
    return Promise.resolve(events);
  }

  get(agent: string, taskId: string): Promise<TaskStory | undefined> {
    return Promise.resolve(this.stories.peek(key(agent, taskId)));
  }

  refuse(agent: string, taskId: string, refusal: Refusal): void {
    // peek: a refusal neither makes the story recent nor renews its age (no state was learned).
    const story = this.stories.peek(key(agent, taskId));
    if (story) addRefusal((story.refused ??= []), refusal);
  }

  ownersOf(agent: string, taskIds: readonly string[]): Promise<Owners> {
    return Promise.resolve(new Map(taskIds.map((id) => [id, this.stories.peek(key(agent, id))?.owner])));
  }

  claimContext(agent: string, contextId: string, principal: string, at: number): void {
    this.contextClock.now = at;
    const k = key(agent, contextId);
    const known = this.contexts.get(k);
    const lastSeen = Math.max(known?.lastSeen ?? at, at);
    this.contexts.set(k, { owner: known?.owner ?? principal, lastSeen }, { start: lastSeen });
  }

  contextOwnersOf(agent: string, contextIds: readonly string[]): Promise<Owners> {
    this.contextClock.now = Date.now();
    return Promise.resolve(new Map(contextIds.map((id) => [id, this.contexts.peek(key(agent, id))?.owner])));
  }

  census(_agents: readonly string[], now: number): Promise<{ census: TaskCensus; events: TaskEvent[] }> {
    this.storyClock.now = now;
    this.stories.purgeStale();
    const census: TaskCensus = new Map();
    const clock = { now, unobservedAfterMs: this.unobservedAfterMs };
    for (const story of this.stories.values()) countStory(census, story, clock);
    return Promise.resolve({ census, events: this.takeDropped() });
  }

  /**
   * Walks every story, least recently recorded first (a sighting may carry an older time than the
   * one before it, so recency is no cut-off): about 1–3 ms for 100,000 stories, once per look
   * (`tasks.confirm.interval`) of each agent that confirms.
   */
  pickUnobserved(agent: string, now: number, limit: number): Promise<StaleTask[]> {
    this.pickClock.now = now;
    const picked: StaleTask[] = [];
    for (const story of this.stories.rvalues()) {
      if (picked.length >= limit) break;
      if (!story || now - story.lastSeen < this.unobservedAfterMs) continue;
      const state = story.states.at(-1)?.state;
      const k = key(agent, story.taskId);
      if (story.agent !== agent || state === undefined || story.durationMs !== undefined || this.picked.has(k))
        continue;
      this.picked.set(k, true);
      picked.push({ taskId: story.taskId, state, ...(story.tenant ? { tenant: story.tenant } : {}) });
    }
    return Promise.resolve(picked);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  private readonly onDropped = (story: TaskStory, _key: string, reason: LRUCache.DisposeReason): void => {
    if ((reason === 'evict' || reason === 'expire') && story.durationMs === undefined)
      this.dropped.push({ type: 'evicted', story });
  };

  private takeDropped(): TaskEvent[] {
    const events = this.dropped;
    this.dropped = [];
    return events;
  }
}
