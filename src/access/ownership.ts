/**
 * Task ownership: which task a request names, and whether the caller may
 * touch it. A task belongs to the principal whose call it first came back to (the task store
 * records that, src/tasks/tracker.ts). Anything else — another principal's task, a task the
 * gateway never saw or has forgotten — is answered as the spec's TaskNotFound, so a caller
 * cannot tell "not yours" from "no such task" (wire-reference §4.1). Pure.
 */
import type { RequestFacts } from '../a2a/request.js';
import { taskScope } from '../a2a/operations.js';

export type OwnershipVerdict =
  | { readonly ok: true }
  /** The task is not the caller's (or unknown): answer TaskNotFound for it. */
  | { readonly ok: false; readonly taskId: string }
  /** The request was too large to read the task id from: it cannot be checked. */
  | { readonly ok: false; readonly unread: true }
  /** An operation on a task that names none the gateway can read: the agent may read one it does not. */
  | { readonly ok: false; readonly unnamed: true };

/**
 * The first context a message names that the caller may not send into, if any: a context (a
 * conversation, which an agent may remember) belongs to the caller its first answer went to.
 * A context the gateway does not know — never seen, or forgotten by the task store (evicted by
 * `tasks.maxTracked`, expired by `tasks.ttl`) — is refused like another caller's, so a caller
 * cannot tell "someone else's" from "unknown" and a forgotten conversation cannot be claimed by
 * whoever names it next (issue 29). A2A lets an agent refuse a client-provided context id as
 * long as it says so rather than replacing it (docs/wire-reference.md §5.4). With
 * `clientContextIds` an unknown context is the caller's to start (the behaviour before). Pure.
 */
export function refusedContext(
  facts: RequestFacts,
  caller: string,
  ownerOf: (contextId: string) => string | undefined,
  clientContextIds: boolean,
): string | undefined {
  return facts.contextIds?.find((id) => {
    const owner = ownerOf(id);
    return owner === undefined ? !clientContextIds : owner !== caller;
  });
}

/** Every task id the request names, wherever an agent might read it (request-body.ts namedTaskIds);
 * none for an operation on no task. The gate looks their owners up before `checkOwnership`. */
export function namedTaskIds(facts: RequestFacts): string[] {
  if (taskScope(facts.operation) === 'none') return [];
  const ids = new Set(facts.taskIds);
  if (facts.taskId !== undefined) ids.add(facts.taskId);
  return [...ids];
}

export function checkOwnership(
  facts: RequestFacts,
  caller: string,
  ownerOf: (taskId: string) => string | undefined,
): OwnershipVerdict {
  const scope = taskScope(facts.operation);
  if (scope === 'none') return { ok: true };
  const sends = scope === 'send';
  const ids = namedTaskIds(facts);
  if (ids.length === 0) {
    if (facts.partial) return { ok: false, unread: true }; // the id may lie past what was read
    return sends ? { ok: true } : { ok: false, unnamed: true }; // a send without one starts a task
  }
  for (const taskId of ids) if (ownerOf(taskId) !== caller) return { ok: false, taskId };
  return { ok: true };
}
