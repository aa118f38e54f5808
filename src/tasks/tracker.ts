/**
 * Follows tasks across calls: a send creates a task, GetTask polls or a SubscribeToTask watch it,
 * another call finishes it. Each (agent, task id) gets one story: first seen, every state seen
 * with its time, last seen, and — once terminal — its duration and the time it spent waiting in
 * an interrupted state (INPUT_REQUIRED / AUTH_REQUIRED, wire-reference §5.2).
 *
 * The store is bounded (LRU with a TTL) and behind an interface so a shared store (Redis, …) can
 * replace the in-memory one without touching the callers.
 */
import { isInterrupted, isTerminal, type TaskState } from '../a2a/task-state.js';

export interface StateVisit {
  readonly state: TaskState;
  readonly at: number;
}

export interface TaskStory {
  readonly agent: string;
  readonly taskId: string;
  readonly contextId?: string;
  /** The principal whose call the task first came back to (task ownership, issue #13 item 4). */
  readonly owner?: string;
  readonly firstSeen: number;
  lastSeen: number;
  readonly states: StateVisit[];
  /** Milliseconds spent in each interrupted state, summed over visits. */
  readonly interruptedMs: Partial<Record<TaskState, number>>;
  /** First seen → first terminal state, once there is one. */
  durationMs?: number;
}

/** What changed when an observation was recorded; telemetry subscribes to these. */
export type TaskEvent =
  | { readonly type: 'state'; readonly story: TaskStory; readonly from: TaskState | undefined; readonly to: TaskState }
  /** An interrupted state was left after `ms` (to any other state). */
  | { readonly type: 'resumed'; readonly story: TaskStory; readonly state: TaskState; readonly ms: number }
  | { readonly type: 'settled'; readonly story: TaskStory; readonly state: TaskState; readonly durationMs: number }
  /** Dropped from the store (capacity or TTL) before reaching a terminal state. */
  | { readonly type: 'evicted'; readonly story: TaskStory };

/** One sighting of a task in an agent's answer. */
export interface TaskSighting {
  readonly state?: TaskState;
  readonly at: number;
  readonly contextId?: string;
  /** Who made the call; becomes the owner of a task seen for the first time. */
  readonly principal?: string;
}

export interface TaskStore {
  /** Records that `taskId` was seen; returns what changed. */
  observe(agent: string, taskId: string, sighting: TaskSighting): TaskEvent[];
  get(agent: string, taskId: string): TaskStory | undefined;
  /** Who owns the task; undefined when it was never seen (or forgotten, or seen without a caller). */
  ownerOf(agent: string, taskId: string): string | undefined;
  /** Records that `contextId` came back to `principal`'s call; the first caller owns it. */
  claimContext(agent: string, contextId: string, principal: string, at: number): void;
  /** Who owns the context (conversation); undefined when never seen or forgotten. */
  contextOwnerOf(agent: string, contextId: string): string | undefined;
  /** Tracked tasks per agent and current state (for the a2a_tasks gauge). */
  countByState(): Map<string, Map<TaskState, number>>;
}

export interface TaskTrackerOptions {
  readonly maxTasks: number;
  /** A story not seen for this long is forgotten. */
  readonly ttlMs: number;
}

const key = (agent: string, taskId: string) => `${agent}\u0000${taskId}`;

export class InMemoryTaskStore implements TaskStore {
  /** Map iteration order is insertion order: re-inserting on access makes it an LRU. */
  private readonly stories = new Map<string, TaskStory>();
  /** Context owners, bounded like the stories (same capacity and TTL, least recently seen first). */
  private readonly contexts = new Map<string, { readonly owner: string; lastSeen: number }>();

  constructor(private readonly options: TaskTrackerOptions) {}

  observe(agent: string, taskId: string, sighting: TaskSighting): TaskEvent[] {
    const { state, at, contextId, principal } = sighting;
    const events: TaskEvent[] = [];
    const k = key(agent, taskId);
    let story = this.stories.get(k);
    if (story) this.stories.delete(k);
    else
      story = {
        agent,
        taskId,
        ...(contextId ? { contextId } : {}),
        ...(principal !== undefined ? { owner: principal } : {}),
        firstSeen: at,
        lastSeen: at,
        states: [],
        interruptedMs: {},
      };
    this.stories.set(k, story);
    story.lastSeen = Math.max(story.lastSeen, at);

    const current = story.states.at(-1)?.state;
    if (state && state !== current && story.durationMs === undefined) {
      story.states.push({ state, at });
      events.push({ type: 'state', story, from: current, to: state });
      if (current && isInterrupted(current)) {
        const since = story.states.at(-2)!.at;
        const ms = Math.max(0, at - since);
        story.interruptedMs[current] = (story.interruptedMs[current] ?? 0) + ms;
        events.push({ type: 'resumed', story, state: current, ms });
      }
      if (isTerminal(state)) {
        story.durationMs = Math.max(0, at - story.firstSeen);
        events.push({ type: 'settled', story, state, durationMs: story.durationMs });
      }
    }
    events.push(...this.evict(at));
    return events;
  }

  get(agent: string, taskId: string): TaskStory | undefined {
    return this.stories.get(key(agent, taskId));
  }

  ownerOf(agent: string, taskId: string): string | undefined {
    return this.stories.get(key(agent, taskId))?.owner;
  }

  claimContext(agent: string, contextId: string, principal: string, at: number): void {
    const k = key(agent, contextId);
    const known = this.contexts.get(k);
    this.contexts.delete(k);
    this.contexts.set(k, { owner: known?.owner ?? principal, lastSeen: Math.max(known?.lastSeen ?? at, at) });
    for (const [old, entry] of this.contexts) {
      if (this.contexts.size <= this.options.maxTasks && at - entry.lastSeen < this.options.ttlMs) break;
      this.contexts.delete(old);
    }
  }

  contextOwnerOf(agent: string, contextId: string): string | undefined {
    const entry = this.contexts.get(key(agent, contextId));
    return entry && Date.now() - entry.lastSeen < this.options.ttlMs ? entry.owner : undefined;
  }

  countByState(): Map<string, Map<TaskState, number>> {
    const out = new Map<string, Map<TaskState, number>>();
    for (const story of this.stories.values()) {
      const state = story.states.at(-1)?.state;
      if (!state) continue;
      let perAgent = out.get(story.agent);
      if (!perAgent) out.set(story.agent, (perAgent = new Map()));
      perAgent.set(state, (perAgent.get(state) ?? 0) + 1);
    }
    return out;
  }

  private evict(now: number): TaskEvent[] {
    const events: TaskEvent[] = [];
    for (const [k, story] of this.stories) {
      const overCapacity = this.stories.size > this.options.maxTasks;
      if (!overCapacity && now - story.lastSeen < this.options.ttlMs) break; // oldest first: the rest are newer
      this.stories.delete(k);
      if (story.durationMs === undefined) events.push({ type: 'evicted', story });
    }
    return events;
  }
}

export type TaskListener = (event: TaskEvent) => void;

/** The store plus its subscribers (metrics, logs); a listener's failure never reaches traffic. */
export class TaskTracker {
  private readonly listeners: TaskListener[] = [];

  constructor(readonly store: TaskStore) {}

  subscribe(listener: TaskListener): void {
    this.listeners.push(listener);
  }

  observe(agent: string, taskId: string, sighting: TaskSighting): void {
    for (const event of this.store.observe(agent, taskId, sighting)) {
      for (const listener of this.listeners) {
        try {
          listener(event);
        } catch {
          // A throwing subscriber changes nothing (principle 15).
        }
      }
    }
  }
}
