/**
 * Follows tasks across calls: a send creates a task, GetTask polls or a SubscribeToTask watch it,
 * another call finishes it. Each (agent, task id) gets one story (story.ts), kept in a task store:
 * in this process (memory-store.ts, the default) or shared by every replica (Redis,
 * src/state/redis-store.ts; docs/deploying.md "Scaling out").
 *
 * The store's reads are asynchronous because a shared store answers over the network. Its
 * writes are never waited for on the forwarding path: `TaskTracker.observe` hands the sighting
 * over and returns; the events come back when the store has recorded it, exactly once across the
 * cluster, and go to the subscribers (metrics).
 */
import type { TaskState } from '../a2a/task-state.js';
import type { Refusal } from './refusal.js';
import type { TaskCensus, TaskEvent, TaskSighting, TaskStory } from './story.js';

export type { Refusal } from './refusal.js';
export type { StateVisit, TaskCensus, TaskEvent, TaskSighting, TaskStory } from './story.js';

/** The owner of each id asked about; an id never seen (or forgotten) maps to undefined. */
export type Owners = ReadonlyMap<string, string | undefined>;

/** The shared store could not answer (down, too slow): callers decide whether to fail closed. */
export class StoreUnavailable extends Error {
  constructor(cause: unknown) {
    super(`the task store cannot answer: ${(cause as Error)?.message ?? String(cause)}`);
    this.name = 'StoreUnavailable';
  }
}

export interface TaskStore {
  /** Records that `taskId` was seen; resolves with what changed (never rejects). */
  observe(agent: string, taskId: string, sighting: TaskSighting): Promise<TaskEvent[]>;
  get(agent: string, taskId: string): Promise<TaskStory | undefined>;
  /** Adds a refused call to a tracked task's story (none for an unknown id); changes nothing else. */
  refuse(agent: string, taskId: string, refusal: Refusal): void;
  /** Who owns each task (the principal its first answer went to). Rejects with StoreUnavailable. */
  ownersOf(agent: string, taskIds: readonly string[]): Promise<Owners>;
  /** Records that `contextId` came back to `principal`'s call; the first caller owns it. */
  claimContext(agent: string, contextId: string, principal: string, at: number): void;
  /** Who owns each context (conversation). Rejects with StoreUnavailable. */
  contextOwnersOf(agent: string, contextIds: readonly string[]): Promise<Owners>;
  /**
   * Tracked tasks per agent and current state. For the task `gauges` (the default): undefined
   * when another replica exports them (a shared store elects one, so a sum over replicas counts
   * each task once). For a `view` (the console's Fleet): always, on every replica. Evictions it
   * makes come back as events like observe's.
   */
  census(
    agents: readonly string[],
    now: number,
    purpose?: CensusPurpose,
  ): Promise<{ census: TaskCensus; events: TaskEvent[] } | undefined>;
  /**
   * Up to `limit` unfinished tasks of `agent` that no answer has shown for `tasks.unobservedAfter`,
   * least recently seen first, for the gateway to confirm (confirm.ts). Each is picked at most once
   * per `unobservedAfter` across every process sharing the store, so replicas and workers never
   * ask the agent about the same task twice. Rejects with StoreUnavailable.
   */
  pickUnobserved(agent: string, now: number, limit: number): Promise<StaleTask[]>;
  /** Closes connections (the in-memory store has none). */
  close(): Promise<void>;
}

export type CensusPurpose = 'gauges' | 'view';

/** A task picked for confirmation, with the state the gateway last knew. */
export interface StaleTask {
  readonly taskId: string;
  readonly state: TaskState;
  /** The tenant its first call named, for the GetTask to name it too. */
  readonly tenant?: string;
}

export type TaskListener = (event: TaskEvent) => void;

/** An answer from `replica` (its URL) named a task or a context for the first time in its exchange (task affinity, src/fleet/pins.ts). */
export interface Naming {
  readonly agent: string;
  readonly replica: string | undefined;
  readonly taskId?: string;
  readonly contextId?: string;
}

export type NamingListener = (naming: Naming) => void;

/** The store plus its subscribers (metrics, logs); a listener's failure never reaches traffic. */
export class TaskTracker {
  private readonly listeners: TaskListener[] = [];
  private readonly naming: NamingListener[] = [];

  constructor(readonly store: TaskStore) {}

  subscribe(listener: TaskListener): void {
    this.listeners.push(listener);
  }

  onNamed(listener: NamingListener): void {
    this.naming.push(listener);
  }

  /** An answer named a task or a context: told at once, before the answer has ended (a stream's first event). */
  named(naming: Naming): void {
    for (const listener of this.naming) {
      try {
        listener(naming);
      } catch {
        // A throwing listener changes nothing (principle 15).
      }
    }
  }

  /** Hands the sighting to the store; its events reach the subscribers once it is recorded. */
  observe(agent: string, taskId: string, sighting: TaskSighting): void {
    void this.store.observe(agent, taskId, sighting).then(this.emit);
  }

  /** Calls every subscriber with each event (also for the census's evictions). */
  readonly emit = (events: readonly TaskEvent[]): void => {
    for (const event of events) {
      for (const listener of this.listeners) {
        try {
          listener(event);
        } catch {
          // A throwing subscriber changes nothing (principle 15).
        }
      }
    }
  };
}
