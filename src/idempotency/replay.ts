/**
 * Answers a duplicate of an idempotent send with the first one's outcome (docs/fleet.md
 * "Idempotent sends"), written once for every binding over the rescue's ports
 * (src/rescue/ports.ts). A Task outcome is answered with the task as it is now: the timeout
 * rescue's steps from a known task id (`followTask`, src/rescue/rescue.ts) — a GetTask, for a
 * blocking duplicate the rescue's wait until it settles or the duplicate's deadline, the Task in
 * the duplicate's own envelope (its JSON-RPC id). A Message outcome is answered by the binding
 * from the stored bytes. Either carries header `A2A-Gateway-Idempotent: replayed`.
 */
import type { RequestFacts } from '../a2a/request.js';
import type { BlockingSend } from '../a2a/rescue-wire.js';
import type { Exchange } from '../exchange/exchange.js';
import type { TaskTracker } from '../tasks/tracker.js';
import { followTask } from '../rescue/rescue.js';
import { sendOf } from '../rescue/decision.js';
import type { RescueAnswer, UpstreamCaller } from '../rescue/ports.js';

export const IDEMPOTENT_HEADER = 'a2a-gateway-idempotent';

/** The duplicate as the rescue's calls and answer need it (as rescueDecision, blocking or not). */
export function replaySendOf(facts: RequestFacts): BlockingSend | undefined {
  return sendOf(facts);
}

export interface TaskReplay<R, T> {
  readonly exchange: Exchange;
  readonly send: BlockingSend;
  readonly caller: UpstreamCaller<R, T>;
  readonly answer: RescueAnswer<R, T>;
  /** The duplicate's SendMessage response around the task, with the header (the binding's). */
  readonly envelope: R;
  /** Epoch ms by which a blocking duplicate is answered (its deadline minus the rescue's margin). */
  readonly answerBy: number;
  readonly tracker: TaskTracker;
}

/** The task as it is now; a blocking duplicate waits for it to settle as the rescue does. */
export function replayTask<R, T>(replay: TaskReplay<R, T>, taskId: string): Promise<void> {
  const { exchange, answer, envelope } = replay;
  const policy = exchange.upstream.config.timeoutRescue;
  const enveloped: RescueAnswer<R, T> = {
    get writable() {
      return answer.writable;
    },
    passOn: (reply) => answer.passOn(reply),
    answerTask: (_first, task, outcome) => answer.answerTask(envelope, task, outcome),
    fail: (err) => answer.fail(err),
    onClientGone: (listener) => answer.onClientGone(listener),
  };
  const run = {
    exchange,
    send: replay.send,
    caller: replay.caller,
    answer: enveloped,
    policy,
    // A known task is followed by subscription or polls; `stream` is a way to send, not to follow.
    strategy: policy.strategy === 'poll' ? ('poll' as const) : ('subscribe' as const),
    answerBy: replay.answerBy,
    tracker: replay.tracker,
    replay: true,
  };
  return followTask(run, taskId, exchange.request?.blocking === true);
}
