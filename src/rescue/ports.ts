/**
 * The two sides a binding gives the timeout rescue (rescue.ts, which writes its steps once):
 * an `UpstreamCaller` that makes the calls to the agent and decodes each reply into facts, and a
 * `RescueAnswer` that writes to the client in the caller's protocol. `R` is a reply as the agent
 * sent it and `T` a Task as the agent wrote it: opaque to the rescue, which decides on the facts
 * alone and hands the agent's own bytes back to the answer side.
 */
import type { TaskState } from '../a2a/task-state.js';
import type { GatewayError } from '../errors/gateway-error.js';

/** What one reply (or stream event) of the agent says: all the rescue decides on. */
export interface ReplyFacts {
  /** `task`: it names a task (a Task, or a stream's status or artifact update). */
  readonly kind: 'task' | 'message' | 'error' | 'other';
  readonly taskId?: string;
  readonly state?: TaskState;
  /** For the tracker's sighting. */
  readonly contextId?: string;
  /** The status's timestamp, where the binding's decoder reads it (settle.ts: follow-ups). */
  readonly timestamp?: string;
  /** The task's draft 1.1 `generation` (≥ 1), where the binding's decoder reads it: the agent
   * keeps one, so its GetTask can long-poll (wire-reference §7.4). */
  readonly generation?: number;
}

/** A reply to a unary call: its facts, the reply itself, and the Task it holds (when whole). */
export interface Reply<R, T> extends ReplyFacts {
  readonly raw: R;
  readonly task?: T;
}

/** One stream event: its facts, the Task when the event is one, and for a Message or an error
 * event the SendMessage response that says the same (the answer when the stream carries no task). */
export interface StreamEvent<R, T> extends ReplyFacts {
  readonly task?: T;
  readonly asReply?: R;
}

/** `onEvent` returns true to stop following (the stream is closed). */
export type EventSink<R, T> = (event: StreamEvent<R, T>) => boolean;

/** The upstream calls of one rescued send, in the caller's binding, version and headers. Each
 * rejects when its signal aborts. */
export interface UpstreamCaller<R, T> {
  /** The send with returnImmediately (0.3: blocking false). */
  sendNonBlocking(signal: AbortSignal): Promise<Reply<R, T>>;
  /** GetTask with the send's historyLength; with `currentGeneration`, the draft 1.1 long-poll
   * (held by the agent until the task's generation passes it). A caller that cannot send it ignores it. */
  getTask(taskId: string, signal: AbortSignal, currentGeneration?: number): Promise<Reply<R, T>>;
  /** SubscribeToTask until the stream ends or `onEvent` says stop. Absent: the rescue polls. */
  subscribe?(taskId: string, signal: AbortSignal, onEvent: EventSink<R, T>): Promise<void>;
  /** The send as SendStreamingMessage, followed as `subscribe`; resolves with the agent's reply
   * when it answered without a stream. Absent: the rescue sends non-blocking and polls. */
  sendStreaming?(signal: AbortSignal, onEvent: EventSink<R, T>): Promise<Reply<R, T> | undefined>;
}

/** Writes the rescue's answer to the client, in the caller's protocol; observers see it as they
 * see a forwarded answer (bytes out, `onResponseStart`, `onResponseChunk`, trailers). */
export interface RescueAnswer<R, T> {
  /** The client can still be answered: nothing has been written and its stream is open. */
  readonly writable: boolean;
  /** The agent's reply, exactly as it came. */
  passOn(reply: R): void;
  /**
   * The agent's Task in the caller's SendMessage response, with header `a2a-gateway-rescue`:
   * `first` is the agent's own reply to the send (its envelope is reused); undefined when the
   * task came by stream, and the answer side writes the envelope itself.
   */
  answerTask(first: R | undefined, task: T, outcome: 'settled' | 'deadline'): void;
  /** A gateway error, in the caller's protocol. */
  fail(err: GatewayError): void;
  /** Calls `listener` when the client goes away before its answer is out; returns the unsubscribe. */
  onClientGone(listener: () => void): () => void;
}
