/**
 * A task's story: first seen, every state seen with its time, last seen, and — once terminal —
 * its duration and the time it spent waiting in an interrupted state (INPUT_REQUIRED /
 * AUTH_REQUIRED, wire-reference §5.2). `advanceStory` is the one rule for moving a story along;
 * the Redis store runs the same rule inside Redis (src/state/redis-scripts.ts), so both stores
 * tell the same story. Pure.
 */
import { isInterrupted, isTerminal, type TaskState } from '../a2a/task-state.js';
import { stateStartedAt } from './agent-time.js';
import type { Refusal } from './refusal.js';

export interface StateVisit {
  readonly state: TaskState;
  readonly at: number;
  /**
   * A reply or an event showed this state to the client; false while only the gateway has seen
   * it (the timeout rescue's subscription or polls, src/rescue/rescue.ts). Upgraded, never
   * downgraded: a later shown sighting of the same state makes it shown.
   */
  shown: boolean;
}

export interface TaskStory {
  readonly agent: string;
  readonly taskId: string;
  readonly contextId?: string;
  /** The principal whose call the task first came back to (task ownership, docs/security.md "Access control"). */
  readonly owner?: string;
  /** The A2A tenant (spec §5.7) the first call naming the task named: the gateway's own GetTask names it too (src/confirm/confirm.ts). */
  readonly tenant?: string;
  readonly firstSeen: number;
  lastSeen: number;
  readonly states: StateVisit[];
  /** Milliseconds spent in each interrupted state, summed over visits. */
  readonly interruptedMs: Partial<Record<TaskState, number>>;
  /** First seen → first terminal state, once there is one. */
  durationMs?: number;
  /** Calls naming this task that were refused, latest last (refusal.ts); never change the state. */
  refused?: Refusal[];
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
  /** The tenant the call named; kept on a task seen for the first time. */
  readonly tenant?: string;
  /** This answer reached the client (the inspector's); false: only the gateway saw it (the rescue's). */
  readonly shown: boolean;
  /**
   * The agent's `status.timestamp` for `state`, epoch ms (agent-time.ts): the visit starts then
   * when it is sane, else at `at`. `at` stays the time the gateway saw it (`lastSeen`).
   */
  readonly agentAt?: number;
}

/**
 * Per agent and current state: how many tracked tasks, how many of the unfinished ones nobody has
 * observed for `tasks.unobservedAfter` (their state is only what was last seen), and when the
 * longest-waiting observed unfinished one entered that state (the `a2a_tasks`,
 * `a2a_tasks_unobserved` and `a2a_task_oldest_state_age_seconds` gauges).
 */
export type TaskCensus = Map<string, Map<TaskState, CensusEntry>>;

export interface CensusEntry {
  count: number;
  unobserved?: number;
  oldestSince?: number;
}

/** When a census is taken, and after how long an unfinished task counts as unobserved. */
export interface CensusClock {
  readonly now: number;
  readonly unobservedAfterMs: number;
}

export function newStory(agent: string, taskId: string, sighting: TaskSighting): TaskStory {
  const { at, contextId, principal, tenant } = sighting;
  return {
    agent,
    taskId,
    ...(contextId ? { contextId } : {}),
    ...(principal !== undefined ? { owner: principal } : {}),
    ...(tenant ? { tenant } : {}),
    firstSeen: at,
    lastSeen: at,
    states: [],
    interruptedMs: {},
  };
}

/**
 * Records `sighting` on `story` (in place) and returns what changed. A new state is recorded
 * with the sighting's `shown`. A shown sighting of the current state marks that visit shown —
 * also after terminal (the rescue sees COMPLETED first, then its answer shows it to the client)
 * — and changes nothing else: no event, no duration.
 */
export function advanceStory(
  story: TaskStory,
  sighting: Pick<TaskSighting, 'state' | 'at' | 'shown' | 'agentAt'>,
): TaskEvent[] {
  const { state, shown } = sighting;
  story.lastSeen = Math.max(story.lastSeen, sighting.at);
  const last = story.states.at(-1);
  const current = last?.state;
  if (state !== undefined && state === current && shown && !last!.shown) last!.shown = true;
  if (!state || state === current || story.durationMs !== undefined) return [];
  const events: TaskEvent[] = [];
  const bounds = { observedAt: sighting.at, firstSeen: story.firstSeen, previousAt: last?.at };
  const at = stateStartedAt(sighting.agentAt, bounds);
  story.states.push({ state, at, shown });
  events.push({ type: 'state', story, from: current, to: state });
  if (current && isInterrupted(current)) {
    const since = story.states.at(-2)!.at;
    const ms = Math.max(0, at - since);
    story.interruptedMs[current] = (story.interruptedMs[current] ?? 0) + ms;
    events.push({ type: 'resumed', story, state: current, ms });
  }
  if (isTerminal(state)) {
    // From the earlier of the first sighting and the first state's start: an agent stamp may
    // precede the sighting (agent-time.ts), and the duration must cover every interruption.
    story.durationMs = Math.max(0, at - Math.min(story.firstSeen, story.states[0]!.at));
    events.push({ type: 'settled', story, state, durationMs: story.durationMs });
  }
  return events;
}

/** Adds `story` to a census (the in-memory store counts its stories this way at scrape time). */
export function countStory(census: TaskCensus, story: TaskStory, clock: CensusClock): void {
  const visit = story.states.at(-1);
  if (!visit) return;
  let perAgent = census.get(story.agent);
  if (!perAgent) census.set(story.agent, (perAgent = new Map()));
  const entry = perAgent.get(visit.state) ?? { count: 0 };
  entry.count++;
  if (isTerminal(visit.state)) {
    // Finished: nothing left to observe.
  } else if (clock.now - story.lastSeen >= clock.unobservedAfterMs) {
    entry.unobserved = (entry.unobserved ?? 0) + 1;
  } else {
    entry.oldestSince = Math.min(entry.oldestSince ?? visit.at, visit.at);
  }
  perAgent.set(visit.state, entry);
}
