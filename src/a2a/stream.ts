/**
 * State machine over the decoded events of one A2A stream (SendStreamingMessage,
 * SubscribeToTask). Rules (§3.1.2, §3.1.6, §3.5.2, §11.7; wire-reference §5.3):
 *  - the first event is a `task` or a `message`;
 *  - a message stream is exactly one `message` event;
 *  - a task stream continues with `statusUpdate` / `artifactUpdate` events (a task snapshot may
 *    be resent, as in `v1--jsonrpc-subscribe-input-required.http`), never a `message`;
 *  - nothing follows a terminal state (a final task snapshot in that same state excepted, §11.7)
 *    nor a 0.3 `final: true` event (wire-reference §6.6);
 *  - events concern one task, the one the request named if it named one.
 * Errors mid-stream are JSON-RPC error responses, REST `{"error":…}` bodies, or any event typed
 * `event: error` (wire-reference §1.1, §1.2, §7.1 #7).
 */
import type { SseEvent, SseStats } from '../codec/sse.js';
import type { Json } from '../codec/json-value.js';
import { checkHistory, checkJsonRpcId, checkShape, checkTaskId, type RequestContext } from './checks.js';
import { createEventHeadReader, headExpectation, type EventHeadReader } from './event-head.js';
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

/** Most state changes a stream keeps for its marks (the console's task timeline). */
export const MAX_STATE_CHANGES = 64;

/** What a stream has shown so far, read after each chunk (src/inspect/inspector.ts marks). */
export interface StreamProgress {
  /** Each change of task state, in order (consecutive repeats once), at most MAX_STATE_CHANGES. */
  readonly stateChanges: readonly TaskState[];
  /** Artifact-update events so far. */
  readonly artifactUpdates: number;
}

export interface StreamMachine extends StreamProgress {
  onEvent(event: SseEvent): void;
  /**
   * One event already decoded by another binding (gRPC StreamResponse, src/a2a/grpc/response.ts):
   * its payload, or `error` with the error's facts, or `other`.
   */
  onDecoded(event: Payload | 'error' | 'other', error?: ErrorFacts): void;
  /** The task the stream is about, once an event has named it (before the stream ends). */
  readonly currentTaskId: string | undefined;
  /** Its context, likewise. */
  readonly currentContextId: string | undefined;
  end(sse: SseStats, aborted: boolean): StreamFacts;
}

/**
 * How a task stream's later events are read (config `inspection.streamEvents`): `head` from their
 * heads in place (src/a2a/event-head.ts says what that does not see), `full` each parsed whole.
 */
export type StreamEventsMode = 'head' | 'full';

export interface StreamMachineOptions {
  /** Monotonic milliseconds; enables `firstEventMs`. */
  readonly clock?: () => number;
  /** Default `head`. */
  readonly streamEvents?: StreamEventsMode;
}

export function createStreamMachine(
  req: RequestContext,
  findings: FindingSink,
  opts: StreamMachineOptions = {},
): StreamMachine {
  return new Machine(req, findings, opts.clock, opts.streamEvents !== 'full' && req.binding !== 'unknown');
}

// A class: one object per stream, not a closure per helper (streams are many and often short).
class Machine implements StreamMachine {
  private readonly startedAt: number | undefined;
  private readonly counts: Record<StreamEventKind, number> = {
    task: 0,
    message: 0,
    statusUpdate: 0,
    artifactUpdate: 0,
    error: 0,
    other: 0,
  };
  private firstEventMs: number | undefined = undefined;
  private firstKind: StreamEventKind | undefined = undefined;
  private lastKind: StreamEventKind | undefined = undefined;
  private taskId: string | undefined = undefined;
  private contextId: string | undefined = undefined;
  private state: TaskState | undefined = undefined;
  private terminalState: TaskState | undefined = undefined;
  private finalFlag = false;
  private error: ErrorFacts | undefined = undefined;
  /** Reads later events' heads, once the task is known (and `readHeads`). */
  private heads: EventHeadReader | undefined = undefined;
  readonly stateChanges: TaskState[] = [];

  constructor(
    private readonly req: RequestContext,
    private readonly findings: FindingSink,
    private readonly clock: (() => number) | undefined,
    private readonly readHeads: boolean,
  ) {
    this.startedAt = clock?.();
  }

  get currentTaskId(): string | undefined {
    return this.taskId;
  }

  get currentContextId(): string | undefined {
    return this.contextId;
  }

  get artifactUpdates(): number {
    return this.counts.artifactUpdate;
  }

  onEvent(event: SseEvent): void {
    if (event.unterminated === true) return; // W3C clients drop it; reported as cutMidEvent
    if (this.firstEventMs === undefined && this.clock !== undefined && this.startedAt !== undefined) {
      this.firstEventMs = this.clock() - this.startedAt;
    }
    // An `event: error` is an error whatever its data says: the full read decides.
    const head = event.event === 'error' ? undefined : this.heads?.read(event.bytes, event.start, event.end);
    this.apply(head ?? this.classify(event));
  }

  onDecoded(event: Payload | 'error' | 'other', error?: ErrorFacts): void {
    // A gRPC error comes in the trailers, at the end: no event to time.
    if (event === 'error') this.error ??= error;
    else if (this.firstEventMs === undefined && this.clock !== undefined && this.startedAt !== undefined) {
      this.firstEventMs = this.clock() - this.startedAt;
    }
    this.apply(event);
  }

  private apply(classified: Payload | 'error' | 'other'): void {
    const payload = typeof classified === 'string' ? undefined : classified;
    const kind: StreamEventKind = typeof classified === 'string' ? classified : (classified.kind ?? 'other');
    this.checkOrder(kind, payload);
    this.counts[kind]++;
    this.lastKind = kind;
    if (payload === undefined || payload.kind === undefined) return;
    if (payload.kind === 'message') this.contextId ??= payload.contextId;
    checkShape(this.req, payload, this.findings);
    checkHistory(this.req, payload, this.findings);
    this.track(payload);
  }

  end(sse: SseStats, aborted: boolean): StreamFacts {
    const { findings, counts, state, terminalState, finalFlag, firstKind } = this;
    if (sse.oversizeEvents > 0)
      findings.add('gateway.inspect-partial', `${sse.oversizeEvents} oversized stream event(s)`);
    if (sse.unterminated && !aborted) findings.add('a2a.stream-cut-mid-event');
    const closure = closureOf(aborted, this.lastKind, firstKind, state, this.req);
    // After a terminal state or a 0.3 `final`, the after-terminal finding already tells the story.
    if (closure === 'open' && !finalFlag && terminalState === undefined) findings.add('a2a.stream-ended-active', state);
    const eventCount =
      counts.task + counts.message + counts.statusUpdate + counts.artifactUpdate + counts.error + counts.other;
    return {
      tag: firstKind === 'task' ? 'task' : firstKind === 'message' ? 'message' : counts.error > 0 ? 'error' : 'other',
      events: counts,
      eventCount,
      firstEventMs: this.firstEventMs,
      taskId: this.taskId,
      contextId: this.contextId,
      finalState: state,
      reachedTerminal: terminalState !== undefined,
      closure,
      finalFlag,
      error: this.error,
      keepalives: sse.comments,
      oversizeEvents: sse.oversizeEvents,
      cutMidEvent: sse.unterminated,
    };
  }

  /** The event's payload, or what the event is when it carries none (no object per event). */
  private classify(event: SseEvent): Payload | 'error' | 'other' {
    const { req, findings } = this;
    let value: unknown;
    try {
      value = JSON.parse(event.data);
    } catch {
      findings.add('a2a.invalid-json', 'stream event');
      if (event.event !== 'error') return 'other';
      this.error ??= { httpStatus: 200 };
      return 'error';
    }
    const binding = req.binding === 'jsonrpc' || (value as Json)?.jsonrpc !== undefined ? 'jsonrpc' : 'rest';
    const err = readError(value, 200, binding);
    if (binding === 'jsonrpc') checkJsonRpcId(req, value, true, err !== undefined, findings);
    if (err !== undefined || event.event === 'error') {
      this.error ??= err ?? { httpStatus: 200 };
      return 'error';
    }
    return readPayload(value, binding === 'jsonrpc' ? 'result' : '', binding);
  }

  private checkOrder(kind: StreamEventKind, payload: Payload | undefined): void {
    if (kind === 'error') return;
    const { findings, terminalState } = this;
    if (this.firstKind === undefined) {
      this.firstKind = kind;
      if (kind !== 'task' && kind !== 'message') findings.add('a2a.stream-first-event', kind);
      return;
    }
    if (this.firstKind === 'message') findings.add('a2a.stream-message-extra-events', kind);
    else if (kind === 'message' && this.counts.task > 0) findings.add('a2a.stream-message-after-task');
    const snapshotOfTerminal = kind === 'task' && payload?.state !== undefined && payload.state === terminalState;
    if ((terminalState !== undefined && !snapshotOfTerminal) || this.finalFlag) {
      findings.add('a2a.stream-event-after-terminal', `${kind} after ${terminalState ?? 'final'}`);
    }
  }

  private track(payload: Payload): void {
    if (payload.kind === 'message') return;
    checkTaskId(this.taskId ?? this.req.taskId, payload, this.findings);
    if (this.taskId === undefined && payload.taskId !== undefined) this.nameTask(payload.taskId);
    this.contextId ??= payload.contextId;
    if (payload.state !== undefined) {
      const changes = this.stateChanges;
      if (payload.state !== this.state && changes.length < MAX_STATE_CHANGES) changes.push(payload.state);
      this.state = payload.state;
      if (isTerminal(payload.state)) this.terminalState ??= payload.state;
    }
    if (payload.final === true) this.finalFlag = true;
  }

  private nameTask(taskId: string): void {
    this.taskId = taskId;
    if (this.readHeads) this.heads = createEventHeadReader(headExpectation(this.req, taskId));
  }
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
