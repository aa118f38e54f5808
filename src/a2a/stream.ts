/**
 * State machine over the decoded events of one A2A stream (SendStreamingMessage,
 * SubscribeToTask). Rules (§3.1.2, §3.1.6, §3.5.2, §11.7; wire-ref §5.3):
 *  - the first event is a `task` or a `message`;
 *  - a message stream is exactly one `message` event;
 *  - a task stream continues with `statusUpdate` / `artifactUpdate` events (a task snapshot may
 *    be resent, as in `v1--jsonrpc-subscribe-input-required.http`), never a `message`;
 *  - nothing follows a terminal state (a final task snapshot in that same state excepted, §11.7)
 *    nor a 0.3 `final: true` event (wire-ref §6.6);
 *  - events concern one task, the one the request named if it named one.
 * Errors mid-stream are JSON-RPC error responses, REST `{"error":…}` bodies, or any event typed
 * `event: error` (wire-ref §1.1, §1.2, §7.1 #7).
 */
import type { SseEvent, SseStats } from '../codec/sse.js';
import type { Json } from '../codec/json-value.js';
import { checkHistory, checkJsonRpcId, checkShape, checkTaskId, type RequestContext } from './checks.js';
import type { FindingSink } from './findings.js';
import { readError, readPayload, type ErrorFacts, type Payload, type PayloadKind } from './payload.js';
import { isInterrupted, isTerminal, type TaskState } from './task-state.js';
import type { ResponseTag } from './unary.js';

export type StreamEventKind = PayloadKind | 'error' | 'other';

/** How the stream ended. */
export type StreamClosure =
  | 'terminal' // last task state terminal
  | 'interrupted' // last task state input- or auth-required
  | 'message' // a message stream
  | 'error' // last event an error
  | 'open' // agent closed while the task was still active
  | 'aborted' // the client or the transport cut it
  | 'empty'; // no event at all

export interface StreamFacts {
  readonly tag: ResponseTag;
  readonly events: Readonly<Record<StreamEventKind, number>>;
  readonly eventCount: number;
  /** Milliseconds from response start to the first event (needs a clock). */
  readonly firstEventMs?: number;
  readonly taskId?: string;
  readonly contextId?: string;
  /** Last task state the stream reported. */
  readonly finalState?: TaskState;
  /** A terminal state was reported at some point. */
  readonly reachedTerminal: boolean;
  readonly closure: StreamClosure;
  /** A 0.3 `final: true` status update was seen. */
  readonly finalFlag: boolean;
  /** The first error event. */
  readonly error?: ErrorFacts;
  /** SSE comment lines, e.g. `: ping` keepalives. */
  readonly keepalives: number;
  /** Events skipped because they exceeded the inspection cap. */
  readonly oversizeEvents: number;
  /** The stream ended inside an event. */
  readonly cutMidEvent: boolean;
}

export interface StreamMachine {
  onEvent(event: SseEvent): void;
  end(sse: SseStats, aborted: boolean): StreamFacts;
}

export function createStreamMachine(req: RequestContext, findings: FindingSink, clock?: () => number): StreamMachine {
  const startedAt = clock?.();
  const counts: Record<StreamEventKind, number> = { task: 0, message: 0, statusUpdate: 0, artifactUpdate: 0, error: 0, other: 0 };
  let firstEventMs: number | undefined;
  let firstKind: StreamEventKind | undefined;
  let lastKind: StreamEventKind | undefined;
  let taskId: string | undefined;
  let contextId: string | undefined;
  let state: TaskState | undefined;
  let terminalState: TaskState | undefined;
  let finalFlag = false;
  let error: ErrorFacts | undefined;

  /** The event's payload, or what the event is when it carries none (no object per event). */
  function classify(event: SseEvent): Payload | 'error' | 'other' {
    let value: unknown;
    try {
      value = JSON.parse(event.data);
    } catch {
      findings.add('a2a.invalid-json', 'stream event');
      if (event.event !== 'error') return 'other';
      error ??= { httpStatus: 200 };
      return 'error';
    }
    const binding = req.binding === 'jsonrpc' || (value as Json)?.jsonrpc !== undefined ? 'jsonrpc' : 'rest';
    const err = readError(value, 200, binding);
    if (binding === 'jsonrpc') checkJsonRpcId(req, value, true, err !== undefined, findings);
    if (err !== undefined || event.event === 'error') {
      error ??= err ?? { httpStatus: 200 };
      return 'error';
    }
    return readPayload(value, binding === 'jsonrpc' ? 'result' : '', binding);
  }

  function checkOrder(kind: StreamEventKind, payload: Payload | undefined): void {
    if (kind === 'error') return;
    if (firstKind === undefined) {
      firstKind = kind;
      if (kind !== 'task' && kind !== 'message') findings.add('a2a.stream-first-event', kind);
      return;
    }
    if (firstKind === 'message') findings.add('a2a.stream-message-extra-events', kind);
    else if (kind === 'message' && counts.task > 0) findings.add('a2a.stream-message-after-task');
    const snapshotOfTerminal = kind === 'task' && payload?.state !== undefined && payload.state === terminalState;
    if ((terminalState !== undefined && !snapshotOfTerminal) || finalFlag) {
      findings.add('a2a.stream-event-after-terminal', `${kind} after ${terminalState ?? 'final'}`);
    }
  }

  function track(payload: Payload): void {
    if (payload.kind === 'message') return;
    checkTaskId(taskId ?? req.taskId, payload, findings);
    taskId ??= payload.taskId;
    contextId ??= payload.contextId;
    if (payload.state !== undefined) {
      state = payload.state;
      if (isTerminal(state)) terminalState ??= state;
    }
    if (payload.final === true) finalFlag = true;
  }

  return {
    onEvent(event) {
      if (event.unterminated === true) return; // W3C clients drop it; reported as cutMidEvent
      if (firstEventMs === undefined && clock !== undefined && startedAt !== undefined) firstEventMs = clock() - startedAt;
      const classified = classify(event);
      const payload = typeof classified === 'string' ? undefined : classified;
      const kind: StreamEventKind = typeof classified === 'string' ? classified : (classified.kind ?? 'other');
      checkOrder(kind, payload);
      counts[kind]++;
      lastKind = kind;
      if (payload === undefined || payload.kind === undefined) return;
      if (payload.kind === 'message') contextId ??= payload.contextId;
      checkShape(req, payload, findings);
      checkHistory(req, payload, findings);
      track(payload);
    },

    end(sse, aborted) {
      if (sse.oversizeEvents > 0) findings.add('gateway.inspect-partial', `${sse.oversizeEvents} oversized stream event(s)`);
      if (sse.unterminated && !aborted) findings.add('a2a.stream-cut-mid-event');
      const closure = closureOf(aborted, lastKind, firstKind, state, req);
      // After a terminal state or a 0.3 `final`, the after-terminal finding already tells the story.
      if (closure === 'open' && !finalFlag && terminalState === undefined) findings.add('a2a.stream-ended-active', state);
      const eventCount = counts.task + counts.message + counts.statusUpdate + counts.artifactUpdate + counts.error + counts.other;
      return {
        tag: firstKind === 'task' ? 'task' : firstKind === 'message' ? 'message' : counts.error > 0 ? 'error' : 'other',
        events: counts,
        eventCount,
        firstEventMs,
        taskId,
        contextId,
        finalState: state,
        reachedTerminal: terminalState !== undefined,
        closure,
        finalFlag,
        error,
        keepalives: sse.comments,
        oversizeEvents: sse.oversizeEvents,
        cutMidEvent: sse.unterminated,
      };
    },
  };
}

function closureOf(
  aborted: boolean,
  lastKind: StreamEventKind | undefined,
  firstKind: StreamEventKind | undefined,
  state: TaskState | undefined,
  req: RequestContext,
): StreamClosure {
  if (aborted) return 'aborted';
  if (lastKind === undefined) return 'empty';
  if (lastKind === 'error') return 'error';
  if (firstKind === 'message') return 'message';
  if (isTerminal(state)) return 'terminal';
  if (isInterrupted(state, req.version)) return 'interrupted';
  return 'open';
}
