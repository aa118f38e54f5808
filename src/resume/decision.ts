/**
 * Pipeline step 4b's decision (docs/fleet.md "Stream resume"), the same for every binding: is
 * this call a resume — a SendStreamingMessage sent again (what an EventSource-style client does
 * on reconnect) or a SubscribeToTask, carrying a `Last-Event-ID` — and which window, from which
 * event on. A `Last-Event-ID` that is not one of the gateway's ids, or that names another task
 * than the SubscribeToTask's, cannot be resumed: `beyond` (answered RESUME_WINDOW_EXCEEDED).
 */
import type { RequestFacts } from '../a2a/request.js';
import { parseEventId } from './event-id.js';
import { windowKey } from './window.js';

export type ResumeRequest =
  | {
      readonly kind: 'window';
      readonly key: string;
      readonly taskId: string;
      readonly stream: string;
      readonly after: number;
    }
  | { readonly kind: 'beyond' };

/** Undefined: not a resume (the call goes on as usual). */
export function resumeOf(
  agent: string,
  facts: RequestFacts | undefined,
  lastEventId: string | string[] | undefined,
): ResumeRequest | undefined {
  if (lastEventId === undefined || facts === undefined) return undefined;
  const op = facts.operation;
  if (op !== 'SendStreamingMessage' && op !== 'SubscribeToTask') return undefined;
  const id = parseEventId(typeof lastEventId === 'string' ? lastEventId : lastEventId[0]);
  if (!id || (op === 'SubscribeToTask' && facts.taskId !== id.taskId)) return { kind: 'beyond' };
  const key = windowKey(agent, id.taskId, id.stream);
  return { kind: 'window', key, taskId: id.taskId, stream: id.stream, after: id.seq };
}
