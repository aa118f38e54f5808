/**
 * Calls naming a task that were refused — by the gateway (task ownership's "not found", an access
 * rule, a rate limit: src/access/gate.ts) or by the agent (TaskNotFound, §3.3.2 / wire-reference
 * §9) — go on that task's story as `refused` entries, so its timeline shows someone asked and
 * was turned away. They never move the story's state or its `lastSeen` (nobody learned the
 * state). Pure.
 */
import type { ExchangeRecord } from '../exchange/record.js';

export interface Refusal {
  readonly at: number;
  /** An access denial (`not-owner`, `forbidden`, …), `rate-limited`, or the agent's `task-not-found`. */
  readonly reason: string;
  /** The operation refused (GetTask, CancelTask, SendMessage, …). */
  readonly operation: string;
}

/** A story keeps the latest this many refusals: enough for a timeline, bounded per task. */
export const MAX_REFUSALS = 10;

/** TaskNotFound in each binding: JSON-RPC -32001, the ErrorInfo reason, gRPC NOT_FOUND (5). */
function agentSaidNotFound(error: NonNullable<ExchangeRecord['a2a']>['error']): boolean {
  return error?.code === -32001 || error?.reason === 'TASK_NOT_FOUND' || error?.grpcStatus === 5;
}

/** Why this exchange, about `taskId`, was refused; undefined when it was not. */
export function refusalOf(record: ExchangeRecord): string | undefined {
  const access = record.access;
  if (access?.denied !== undefined) return access.denied;
  if (access?.rateLimited === true || record.status === 429) return 'rate-limited';
  if (record.status === 403) return 'forbidden';
  return agentSaidNotFound(record.a2a?.error) ? 'task-not-found' : undefined;
}

/** Appends `refusal` to the story's list (in place), keeping the latest MAX_REFUSALS. */
export function addRefusal(refused: Refusal[], refusal: Refusal): void {
  refused.push(refusal);
  if (refused.length > MAX_REFUSALS) refused.splice(0, refused.length - MAX_REFUSALS);
}
