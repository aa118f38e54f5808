/**
 * Task ownership (issue #13 item 4): which task a request names, and whether the caller may
 * touch it. A task belongs to the principal whose call it first came back to (the task store
 * records that, src/tasks/tracker.ts). Anything else — another principal's task, a task the
 * gateway never saw or has forgotten — is answered as the spec's TaskNotFound, so a caller
 * cannot tell "not yours" from "no such task" (wire-reference §4.1). Pure.
 */
import type { RequestFacts } from '../a2a/request.js';
import type { Operation } from '../a2a/operations.js';

/** Operations on one existing task, named by its id. */
const ON_A_TASK: ReadonlySet<Operation> = new Set<Operation>([
  'GetTask',
  'CancelTask',
  'SubscribeToTask',
  'CreateTaskPushNotificationConfig',
  'GetTaskPushNotificationConfig',
  'ListTaskPushNotificationConfigs',
  'DeleteTaskPushNotificationConfig',
]);

export type OwnershipVerdict =
  | { readonly ok: true }
  /** The task is not the caller's (or unknown): answer TaskNotFound for it. */
  | { readonly ok: false; readonly taskId: string }
  /** The request was too large to read the task id from: it cannot be checked. */
  | { readonly ok: false; readonly unread: true };

export function checkOwnership(
  facts: RequestFacts,
  caller: string,
  ownerOf: (taskId: string) => string | undefined,
): OwnershipVerdict {
  const op = facts.operation;
  const sends = op === 'SendMessage' || op === 'SendStreamingMessage';
  if (!sends && !ON_A_TASK.has(op)) return { ok: true };
  const taskId = facts.taskId;
  // A send without a task id starts a new task — unless the id lies past what was read.
  if (taskId === undefined) return facts.partial ? { ok: false, unread: true } : { ok: true };
  return ownerOf(taskId) === caller ? { ok: true } : { ok: false, taskId };
}
