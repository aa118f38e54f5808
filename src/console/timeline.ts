/**
 * One task's timeline (the A2A guide's figure): its story from the task store
 * (src/tasks/story.ts: every state with when and whether the client was shown it) and a bar per
 * call that touched it, from the recent exchanges (src/inspect/recent.ts) — what each call showed
 * its client and when (record.a2a.marks, src/inspect/inspector.ts). Pure: the route
 * (timeline-route.ts) reads the store and the ring.
 */
import type { ExchangeRecord } from '../exchange/record.js';
import type { TaskStory } from '../tasks/story.js';
import type { TaskTimeline, TimelineCall } from './api-types.js';

/** `story` and the calls among `records` (any order) that named its task, oldest first. */
export function taskTimeline(story: TaskStory, records: readonly ExchangeRecord[]): TaskTimeline {
  const calls = records
    .filter((record) => touches(record, story))
    .sort((a, b) => a.startedAt - b.startedAt)
    .map(callOf);
  return {
    agent: story.agent,
    taskId: story.taskId,
    ...(story.contextId !== undefined ? { contextId: story.contextId } : {}),
    firstSeen: story.firstSeen,
    lastSeen: story.lastSeen,
    ...(story.durationMs !== undefined ? { durationMs: story.durationMs } : {}),
    interruptedMs: { ...story.interruptedMs },
    states: story.states.map(({ state, at, shown }) => ({ state, at, shown })),
    calls,
  };
}

/** The call named the task in its answer or request (a2a.taskId), or the rescue waited for it. */
function touches(record: ExchangeRecord, story: TaskStory): boolean {
  if (record.agent !== story.agent) return false;
  return record.a2a?.taskId === story.taskId || record.rescue?.taskId === story.taskId;
}

function callOf(record: ExchangeRecord): TimelineCall {
  const a2a = record.a2a;
  const endedAt = record.startedAt + record.durationMs;
  // A record inspected before marks existed (or by a replica without them) still shows its state.
  const states =
    a2a?.marks?.states ?? (a2a?.state !== undefined && a2a.kind === 'task' ? [{ state: a2a.state, at: endedAt }] : []);
  return {
    // ExchangeRecord.id comes with the console's data APIs (src/console/api.ts); until then ''.
    exchangeId: record.id,
    method: a2a?.operation ?? 'unknown',
    startedAt: record.startedAt,
    endedAt,
    ...(a2a?.operation === 'SendMessage' && a2a.blocking !== undefined ? { blocking: a2a.blocking } : {}),
    stream: a2a?.stream !== undefined,
    ...(record.rescue?.outcome !== undefined ? { rescue: record.rescue.outcome } : {}),
    states: states.map(({ state, at }) => ({ state, at })),
    artifactsAt: [...(a2a?.marks?.artifactsAt ?? [])],
  };
}
