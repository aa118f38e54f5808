/**
 * The scripts' JSON replies (redis-scripts.ts) as the tracker's types. Lua's JSON encoder writes
 * an empty array as `{}`, so lists are normalised here. Pure.
 */
import type { Refusal } from '../tasks/refusal.js';
import type { TaskState } from '../a2a/task-state.js';
import type { TaskCensus, TaskEvent, TaskStory } from '../tasks/story.js';

type Json = Record<string, unknown>;

const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

function storyOf(raw: Json, owner: unknown): TaskStory {
  return {
    agent: String(raw.agent),
    taskId: String(raw.taskId),
    ...(typeof raw.contextId === 'string' ? { contextId: raw.contextId } : {}),
    ...(typeof owner === 'string' ? { owner } : {}),
    ...(typeof raw.tenant === 'string' ? { tenant: raw.tenant } : {}),
    firstSeen: Number(raw.firstSeen),
    lastSeen: Number(raw.lastSeen),
    states: list(raw.states).map((visit) => ({
      state: (visit as Json).state as TaskState,
      at: Number((visit as Json).at),
      // Stories stored before `shown` existed were all shown to their clients.
      shown: (visit as Json).shown !== false,
    })),
    interruptedMs: (raw.interruptedMs && typeof raw.interruptedMs === 'object'
      ? raw.interruptedMs
      : {}) as TaskStory['interruptedMs'],
    ...(typeof raw.durationMs === 'number' ? { durationMs: raw.durationMs } : {}),
    ...(Array.isArray(raw.refused) && raw.refused.length > 0 ? { refused: raw.refused as Refusal[] } : {}),
  };
}

function eventOf(raw: Json, story: TaskStory): TaskEvent {
  const state = raw.state as TaskState;
  if (raw.type === 'state')
    return { type: 'state', story, from: raw.from as TaskState | undefined, to: raw.to as TaskState };
  if (raw.type === 'resumed') return { type: 'resumed', story, state, ms: Number(raw.ms) };
  return { type: 'settled', story, state, durationMs: Number(raw.durationMs) };
}

const evictions = (raw: unknown): TaskEvent[] =>
  list(raw).map((story) => ({ type: 'evicted', story: storyOf(story as Json, undefined) }));

/** A stored story (the `story` field of its hash) with its owner. */
export function decodeStory(raw: string, owner: string | null): TaskStory {
  return storyOf(JSON.parse(raw) as Json, owner);
}

/** A sighting's reply (redis-scripts.ts `observe`): its owner, whether the story has settled (and its last visit is shown) and, when something changed, the story and events. */
export function decodeObserved(reply: string): {
  owner?: string;
  settled: boolean;
  /** The story's last visit is shown (or it has none). */
  lastShown: boolean;
  events: TaskEvent[];
} {
  const doc = JSON.parse(reply) as Json;
  const owner = typeof doc.owner === 'string' ? doc.owner : undefined;
  const settled = doc.settled === true;
  const lastShown = doc.lastShown !== false;
  if (!doc.story) return { owner, settled, lastShown, events: [] };
  const story = storyOf(doc.story as Json, owner);
  return { owner, settled, lastShown, events: list(doc.events).map((event) => eventOf(event as Json, story)) };
}

/** The tasks a write batch evicted (the last reply of WRITE), as events. */
export function decodeEvicted(reply: string): TaskEvent[] {
  return evictions(JSON.parse(reply));
}

/** CENSUS's reply: counts and oldest entry time per agent and state, and the evictions it made. */
export function decodeCensus(reply: string): { census: TaskCensus; events: TaskEvent[] } {
  const doc = JSON.parse(reply) as Json;
  const census: TaskCensus = new Map();
  for (const [agent, byState] of Object.entries((doc.census ?? {}) as Record<string, Json>)) {
    const perAgent = new Map<TaskState, { count: number; oldestSince?: number; unobserved?: number }>();
    for (const [state, entry] of Object.entries(byState ?? {})) {
      const { count, oldestSince, unobserved } = entry as Json;
      perAgent.set(state as TaskState, {
        count: Number(count),
        ...(typeof oldestSince === 'number' ? { oldestSince } : {}),
        ...(typeof unobserved === 'number' && unobserved > 0 ? { unobserved } : {}),
      });
    }
    census.set(agent, perAgent);
  }
  return { census, events: evictions(doc.evicted) };
}
