/**
 * When a task counts as settled for a blocking send: terminal or interrupted (spec §3.2.2,
 * wire-reference §5.1; AUTH_REQUIRED is interrupted only in 1.0, §6.6).
 *
 * A follow-up message on an interrupted task needs care: right after a returnImmediately send
 * the agent may still report the task's previous INPUT_REQUIRED state, which is not the answer to
 * this message. So for a follow-up, an interrupted state seen first counts only once the task has
 * moved on: through a state that is not interrupted, or a status with a new timestamp.
 */
import { isInterrupted, isTerminal, type TaskState } from '../a2a/task-state.js';
import type { ProtocolVersion } from '../a2a/operations.js';

export class SettleWatch {
  private stale: { state: TaskState; timestamp: string | undefined } | undefined;
  private first = true;

  constructor(
    private readonly version: ProtocolVersion,
    private readonly followUp: boolean,
  ) {}

  /** Feeds one observation of the task; true when it is settled. */
  observe(state: TaskState | undefined, timestamp?: string): boolean {
    if (!state) return false;
    const wasFirst = this.first;
    this.first = false;
    if (isTerminal(state)) return true;
    if (!isInterrupted(state, this.version)) {
      this.stale = undefined; // it moved on
      return false;
    }
    if (wasFirst && this.followUp) {
      this.stale = { state, timestamp };
      return false;
    }
    if (this.stale && (timestamp === undefined || timestamp === this.stale.timestamp)) return false;
    this.stale = undefined;
    return true;
  }
}
