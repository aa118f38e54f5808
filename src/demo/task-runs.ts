// Bookkeeping for running executions, shared by every demo agent and test peer.
// The SDKs call AgentExecutor.cancelTask(taskId, bus) with nothing but the task id, and
// their cancel path then waits on that bus for a terminal event: so an agent must be able
// to (a) stop the loop that is producing events for the task and (b) publish CANCELED with
// the right contextId, even when no loop is running (e.g. a task parked in INPUT_REQUIRED).
import { setTimeout as delay } from 'node:timers/promises';

export class TaskRuns {
  private readonly running = new Map<string, AbortController>();
  private readonly contexts = new Map<string, string>();
  /** Aborted by abortAll(): lets a server shutdown stop every pending timer at once. */
  private readonly lifetime = new AbortController();

  /** Remembers the task's context without starting a run (e.g. a task parked for input). */
  note(taskId: string, contextId: string): void {
    this.contexts.set(taskId, contextId);
  }

  /** Registers a run for `taskId` and returns the signal its loop must honour. */
  start(taskId: string, contextId: string): AbortSignal {
    this.running.get(taskId)?.abort();
    const controller = new AbortController();
    this.running.set(taskId, controller);
    this.note(taskId, contextId);
    return AbortSignal.any([controller.signal, this.lifetime.signal]);
  }

  /** Marks the run finished (its loop returned); the context stays known for a later cancel. */
  finish(taskId: string): void {
    this.running.delete(taskId);
  }

  /** Stops the loop of `taskId` if one is running. Returns whether one was. */
  cancel(taskId: string): boolean {
    const controller = this.running.get(taskId);
    this.running.delete(taskId);
    controller?.abort();
    return controller !== undefined;
  }

  contextOf(taskId: string): string {
    return this.contexts.get(taskId) ?? '';
  }

  /** Aborts every run, present and future; used on shutdown. */
  abortAll(): void {
    this.lifetime.abort();
    for (const controller of this.running.values()) controller.abort();
    this.running.clear();
  }
}

/** Waits `ms`, or less if `signal` aborts first. Resolves true when the full delay elapsed. */
export async function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  try {
    await delay(Math.max(0, ms), undefined, { signal });
    return true;
  } catch (err) {
    if ((err as Error).name === 'AbortError') return false;
    throw err;
  }
}
