/**
 * Confirming stale tasks (docs/operations.md "Confirming stale tasks", issue #30; a folder of its own: it uses the
 * task store, task affinity's placement and the HTTP bindings' upstream calls, which all import src/tasks): a task whose
 * callers stopped asking keeps the last state an answer showed — WORKING, say — although the
 * agent finished it long ago. For agents with `tasks.confirm.enabled` (off by default), the
 * gateway asks the agent itself: every `interval` it picks up to `batch` unfinished tasks no
 * answer has shown for `tasks.unobservedAfter` (the store picks each once per that period across
 * replicas, tracker.ts `pickUnobserved`) and sends each a GetTask of its own, one at a time, on
 * the interface the agent's card advertises (src/a2a/confirm-target.ts), with the agent's configured
 * `headers` and never a caller's credentials, within `timeout`.
 *
 * What the agent answers goes on the task's story as a sighting only the gateway saw
 * (`shown: false`, as the timeout rescue's): a new state moves the story (and the task gauges
 * and histograms, with the agent's `status.timestamp`, agent-time.ts); TaskNotFound is noted as
 * a refusal (refusal.ts); anything else is a failure, logged. Each outcome is counted
 * (`a2a_task_confirmations_total`). Nothing here is on the forwarding path.
 */
import type { Upstream } from '../transport/upstream.js';
import type { Pins } from '../fleet/pins.js';
import { placeTask } from '../fleet/placement.js';
import { callJson, type JsonReply } from '../bindings/http/rescue-calls.js';
import { getTaskCall, readGetTaskResponse, type HttpSend } from '../a2a/rescue-wire.js';
import { GATEWAY_USER_AGENT } from '../version.js';
import type { Logger } from '../log.js';
import { parseAgentTimestamp } from '../tasks/agent-time.js';
import { confirmSend, type ConfirmTarget } from '../a2a/confirm-target.js';
import type { StaleTask, TaskTracker } from '../tasks/tracker.js';

export const CONFIRM_OUTCOMES = ['unchanged', 'changed', 'not_found', 'failed'] as const;
export type ConfirmOutcome = (typeof CONFIRM_OUTCOMES)[number];

/** An agent as the confirmer sees it in the current config: its pools and config, and its card's target. */
export interface ConfirmAgent {
  readonly upstream: Upstream;
  /** Read at each look, from the card as last fetched: undefined until it is, or when it advertises no JSON-RPC or HTTP+JSON interface. */
  readonly target: () => ConfirmTarget | undefined;
}

export interface ConfirmDeps {
  /** The current config's agents (read at each tick, so a reload takes effect at the next). */
  readonly agents: () => Iterable<ConfirmAgent>;
  readonly tracker: TaskTracker;
  readonly pins: Pins;
  readonly log: Logger;
  /** Counts an outcome (`a2a_task_confirmations_total`); absent with metrics off. */
  readonly counted?: (agent: string, outcome: ConfirmOutcome) => void;
  readonly now?: () => number;
}

/** How often the confirmer looks whether an agent's `interval` has come round. */
const TICK_MS = 1000;

export class TaskConfirmer {
  private readonly next = new Map<string, number>();
  private readonly busy = new Set<string>();
  /** The last failure logged per agent, so a failing agent is logged when its failure changes. */
  private readonly lastFailure = new Map<string, string>();
  private timer: NodeJS.Timeout | undefined;
  private period = 0;
  /** Aborted by `stop`: a GetTask in flight at shutdown ends with it. */
  private stopped = new AbortController();
  private readonly now: () => number;

  constructor(private readonly deps: ConfirmDeps) {
    this.now = deps.now ?? Date.now;
  }

  /** Ticks every second, or at the shortest enabled `interval` when that is shorter (re-read at each tick). */
  start(): void {
    clearInterval(this.timer);
    this.period = this.tickMs();
    this.timer = setInterval(() => this.tick(), this.period);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.stopped.abort();
    this.stopped = new AbortController();
  }

  /** Starts a look for each enabled agent whose interval has come round (and none running). */
  tick(): void {
    if (this.timer !== undefined && this.tickMs() !== this.period) this.start(); // a reload changed the intervals
    const now = this.now();
    for (const agent of this.deps.agents()) {
      const { name, config } = agent.upstream;
      if (!config.tasks.confirm.enabled || this.busy.has(name) || (this.next.get(name) ?? 0) > now) continue;
      this.next.set(name, now + config.tasks.confirm.interval);
      this.busy.add(name);
      void this.look(agent).finally(() => this.busy.delete(name));
    }
  }

  /** One look at one agent: pick its stale tasks and confirm each, one at a time. */
  async look(agent: ConfirmAgent): Promise<void> {
    const { name, config } = agent.upstream;
    const target = agent.target();
    if (target === undefined)
      return this.failed(name, 'no card fetched yet, or it advertises no JSON-RPC or HTTP+JSON interface');
    let stale: StaleTask[];
    try {
      stale = await this.deps.tracker.store.pickUnobserved(name, this.now(), config.tasks.confirm.batch);
    } catch (err) {
      return this.failed(name, (err as Error).message);
    }
    for (const task of stale) this.count(name, await this.confirm(agent, target, task));
  }

  private async confirm(agent: ConfirmAgent, target: ConfirmTarget, task: StaleTask): Promise<ConfirmOutcome> {
    const { name } = agent.upstream;
    const send = confirmSend(target, task.tenant);
    let reply: JsonReply;
    try {
      reply = await this.getTask(agent.upstream, send, task.taskId);
    } catch (err) {
      this.failed(name, (err as Error).message, task.taskId);
      return 'failed';
    }
    const read = readGetTaskResponse(send, reply.doc);
    const at = this.now();
    if (read.kind === 'task' && read.taskId === task.taskId && read.state !== undefined) {
      const agentAt = parseAgentTimestamp(read.timestamp);
      const contextId = typeof read.task['contextId'] === 'string' ? read.task['contextId'] : undefined;
      const sighting = { state: read.state, at, shown: false, ...(agentAt !== undefined ? { agentAt } : {}) };
      this.deps.tracker.observe(name, task.taskId, contextId ? { ...sighting, contextId } : sighting);
      return read.state === task.state ? 'unchanged' : 'changed';
    }
    if (saysNotFound(reply)) {
      this.deps.tracker.store.refuse(name, task.taskId, { at, operation: 'GetTask', reason: 'task-not-found' });
      return 'not_found';
    }
    this.failed(name, `the agent answered HTTP ${reply.status} without the task`, task.taskId);
    return 'failed';
  }

  /** The gateway's own GetTask, on the task's replica, with the agent's configured headers only. */
  private async getTask(upstream: Upstream, send: HttpSend, taskId: string): Promise<JsonReply> {
    const replica = await placeTask(upstream, this.deps.pins, taskId);
    const call = getTaskCall(send, taskId);
    const headers = ['accept', 'application/json', 'user-agent', GATEWAY_USER_AGENT];
    if (call.body) headers.push('content-type', 'application/json');
    if (send.version === '1.0') headers.push('a2a-version', '1.0');
    for (const [name, value] of upstream.extraHeaders) headers.push(name, value);
    const timeout = AbortSignal.timeout(upstream.config.tasks.confirm.timeout);
    const signal = AbortSignal.any([timeout, this.stopped.signal]);
    return callJson({ replica, agent: upstream.name }, call, headers, signal);
  }

  private count(agent: string, outcome: ConfirmOutcome): void {
    if (outcome !== 'failed') this.lastFailure.delete(agent);
    this.deps.counted?.(agent, outcome);
  }

  /** Logs a failure once until it changes or a confirmation succeeds (a down agent would otherwise log every look). */
  private failed(agent: string, why: string, taskId?: string): void {
    if (this.lastFailure.get(agent) === why) return;
    this.lastFailure.set(agent, why);
    this.deps.log.warn({ agent, ...(taskId ? { taskId } : {}), err: why }, 'task confirmation failed');
  }

  private tickMs(): number {
    let ms = TICK_MS;
    for (const { upstream } of this.deps.agents()) {
      if (upstream.config.tasks.confirm.enabled) ms = Math.min(ms, upstream.config.tasks.confirm.interval);
    }
    return Math.max(ms, 10);
  }
}

/** TaskNotFound: JSON-RPC -32001 (1.0 and 0.3), or REST 404 (wire-reference §9). */
function saysNotFound(reply: JsonReply): boolean {
  const error = (reply.doc as { error?: { code?: unknown } } | undefined)?.error;
  return error?.code === -32001 || reply.status === 404;
}
