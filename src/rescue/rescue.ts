/**
 * Timeout rescue (README "Timeout rescue"; docs/ARCHITECTURE.md "Timeout rescue"). A blocking
 * SendMessage holds the request open until the task is terminal or interrupted, with no time
 * limit in the spec (wire-reference §5.1); client libraries and load balancers time out after
 * 5–60 s, so the client gives up first and never learns the task id. For agents with
 * `timeoutRescue.enabled`, a `Rescue` instead:
 *   1. sends it with returnImmediately (0.3: blocking false) — or as SendStreamingMessage,
 *   2. answers at once what needs no waiting (a Message, an error, a settled task), exactly as sent,
 *   3. else waits server-side (SubscribeToTask, or GetTask polls) until the task settles or the
 *      client's deadline minus the margin comes,
 *   4. fetches the Task with one GetTask (the client's historyLength) and answers it in the
 *      caller's own envelope: settled, or at the deadline the latest snapshot with its id.
 * `send()` is steps 1–2, `waitUntilSettled()` step 3, `answer()` step 4. The steps are written
 * once here, for every binding: each gives an upstream caller and a client answer (ports.ts;
 * HTTP: http.ts, gRPC: src/bindings/grpc/rescue.ts). A caller without subscriptions or streams is polled.
 * Every state the rescue sees goes to the task tracker as a gateway-only sighting (`shown:
 * false`): the client has not seen it yet; the inspector's sighting of the answer shows it
 * (src/tasks/story.ts; the console's task timeline draws the difference).
 * The agent's task is never canceled, whatever happens to the client.
 */
import { performance } from 'node:perf_hooks';
import type { Exchange } from '../exchange/exchange.js';
import type { RescueFacts, RescueStrategy } from '../exchange/record.js';
import type { AgentConfig } from '../config/schema.js';
import { parseAgentTimestamp } from '../tasks/agent-time.js';
import type { TaskTracker } from '../tasks/tracker.js';
import { GatewayError, upstreamFailure } from '../errors/gateway-error.js';
import type { BlockingSend } from './decision.js';
import type { EventSink, Reply, ReplyFacts, RescueAnswer, UpstreamCaller } from './ports.js';
import { SettleWatch } from './settle.js';
import { sleep } from './sleep.js';
import { StopSignals } from './stop-signals.js';

export const RESCUE_HEADER = 'a2a-gateway-rescue';

export interface RescueRun<R, T> {
  readonly exchange: Exchange;
  readonly send: BlockingSend;
  readonly caller: UpstreamCaller<R, T>;
  readonly answer: RescueAnswer<R, T>;
  readonly policy: AgentConfig['timeoutRescue'];
  /** As resolved from the config and the card (policy.ts); one the caller cannot do is polled. */
  readonly strategy: RescueStrategy;
  /** Epoch ms at which the client must have its answer (deadline − margin). */
  readonly answerBy: number;
  /** Hears every state the rescue sees (gateway-only sightings). */
  readonly tracker: TaskTracker;
  /** An idempotent send's duplicate (src/idempotency/replay.ts): not a rescue, so not on the record as one. */
  readonly replay?: boolean;
}

/** The answer to a rescued call at the end of the shutdown grace: the task id when known, so the
 * client can poll it on another instance. */
export function shuttingDown(taskId: string | undefined): GatewayError {
  const message = taskId
    ? `the gateway is shutting down; task ${taskId} goes on at the agent: poll it with GetTask or subscribe to it`
    : 'the gateway is shutting down; retry on another instance';
  return new GatewayError('SHUTTING_DOWN', message, taskId ? { taskId } : {});
}

export async function rescue<R, T>(run: RescueRun<R, T>): Promise<void> {
  const rescue = new Rescue(run);
  try {
    const pending = await rescue.send();
    if (!pending) return;
    await rescue.waitUntilSettled(pending);
    await rescue.answer(pending);
  } catch (err) {
    rescue.failed(err);
  } finally {
    rescue.end();
  }
}

/**
 * A task already known — the outcome of an idempotent send's first call, answering its duplicate
 * (src/idempotency/replay.ts) — followed from its id with steps 3–4, no send: a look at it
 * (GetTask), the wait when `wait` (a blocking duplicate) and it has not settled, the answer.
 */
export async function followTask<R, T>(run: RescueRun<R, T>, taskId: string, wait: boolean): Promise<void> {
  const rescue = new Rescue(run);
  try {
    const pending: Pending<R, T> = { taskId, latest: undefined, envelope: undefined };
    if (wait && !(await rescue.look(pending))) await rescue.waitUntilSettled(pending);
    await rescue.answer(pending);
  } catch (err) {
    rescue.failed(err);
  } finally {
    rescue.end();
  }
}

/** The strategy the caller can do: without subscriptions or streams, polling. */
function possible(strategy: RescueStrategy, caller: UpstreamCaller<unknown, unknown>): RescueStrategy {
  if (strategy === 'subscribe' && !caller.subscribe) return 'poll';
  if (strategy === 'stream' && !caller.sendStreaming) return 'poll';
  return strategy;
}

/** The task a send left to wait for. */
interface Pending<R, T> {
  readonly taskId: string;
  /** The latest Task the agent has shown, if any: the answer at the deadline. */
  latest: T | undefined;
  /** The agent's reply to the send, whose envelope the answer reuses (none for a stream). */
  readonly envelope: R | undefined;
}

type Streamed<R, T> =
  | { kind: 'task'; taskId: string; task: T | undefined }
  | { kind: 'reply'; raw: R; outcome: 'message' | 'error' }
  | { kind: 'none' };

class Rescue<R, T> {
  private readonly facts: RescueFacts;
  /** Two reasons to stop waiting: the client left (stop everything), the deadline came (answer). */
  private readonly stop: StopSignals;
  private readonly watch: SettleWatch;
  private readonly unwatchClient: () => void;
  /** performance.now() when the task was first seen settled. */
  private settledAt: number | undefined;
  /** The task has been named to the tracker (task affinity pins its replica). */
  private pinned = false;
  /** The highest draft 1.1 `generation` the agent has shown for the task: GetTask long-polls from it. */
  private generation: number | undefined;

  constructor(private readonly run: RescueRun<R, T>) {
    this.facts = { strategy: possible(run.strategy, run.caller), polls: 0 };
    if (!run.replay) run.exchange.record.rescue = this.facts;
    run.exchange.terminate = this.terminate;
    this.stop = new StopSignals(run.answerBy);
    this.unwatchClient = run.answer.onClientGone(() => this.stop.clientLeft('client gone'));
    this.watch = new SettleWatch(run.send.version, run.send.followUp);
  }

  /** 1. The send: non-blocking, or as a stream whose first event names the task. 2. What needs no
   * waiting is answered here, as the agent sent it. Returns the task to wait for, if there is one. */
  send(): Promise<Pending<R, T> | undefined> {
    return this.facts.strategy === 'stream' ? this.sendStreaming() : this.sendNonBlocking();
  }

  /** 3. Waits server-side: the subscription first (when chosen), polling for whatever is left. */
  async waitUntilSettled(pending: Pending<R, T>): Promise<void> {
    if (this.settledAt === undefined && !this.stop.stoppedWaiting && this.facts.strategy === 'subscribe') {
      await this.waitBySubscription(pending.taskId);
    }
    if (this.settledAt === undefined && !this.stop.stoppedWaiting) {
      const polled = await this.waitByPolling(pending.taskId);
      if (polled) pending.latest = polled;
    }
  }

  /** One GetTask of a known task (followTask); true when it has settled. */
  async look(pending: Pending<R, T>): Promise<boolean> {
    const reply = await this.run.caller.getTask(pending.taskId, this.stop.either.signal);
    if (reply.kind !== 'task' || reply.task === undefined) return false;
    pending.latest = reply.task;
    return this.see(pending.taskId, reply);
  }

  /** 4. The agent's own Task, as GetTask returns it, in the caller's envelope. */
  async answer(pending: Pending<R, T>): Promise<void> {
    if (this.stop.clientHasLeft) return;
    try {
      const fetched = await this.run.caller.getTask(pending.taskId, this.stop.clientGone.signal);
      if (fetched.kind !== 'task' && !pending.latest) this.facts.outcome = 'error';
      if (fetched.kind === 'task' && fetched.task !== undefined) {
        pending.latest = fetched.task;
        this.see(pending.taskId, fetched);
      }
    } catch (err) {
      if (this.stop.clientHasLeft) return;
      if (!pending.latest) throw err; // nothing to answer with
    }
    const { latest } = pending;
    if (latest === undefined) {
      // Only a status event named the task and GetTask does not know it: the gateway does not
      // make a Task up (it answers with the agent's own), so it says what happened instead.
      const agent = this.run.exchange.upstream.name;
      throw new GatewayError(
        'UPSTREAM_INVALID',
        `agent "${agent}" reported task ${pending.taskId} but GetTask does not return it`,
        { agent, taskId: pending.taskId },
      );
    }
    const outcome = this.settledAt !== undefined ? 'settled' : 'deadline';
    this.facts.outcome = outcome;
    this.reply(() => this.run.answer.answerTask(pending.envelope, latest, outcome));
  }

  /** Anything that went wrong on the way, answered in the caller's protocol (unless it left). */
  failed(err: unknown): void {
    if (this.stop.clientHasLeft) return;
    this.fail(upstreamFailure(err, this.run.exchange.upstream.name));
  }

  /** Always last: the exchange finishes, exactly once (principle 8). */
  end(): void {
    const { exchange } = this.run;
    this.stop.release();
    this.unwatchClient();
    if (this.stop.clientHasLeft && this.facts.outcome !== 'shutdown') {
      this.facts.outcome = 'client-gone';
      exchange.fail('client-gone', new Error('client went away while the gateway waited for the task'));
    }
    exchange.finish();
  }

  /**
   * Graceful shutdown, after its grace period: the client is answered now, in its protocol, with
   * the task id when one is known (so it can poll another instance), and the waiting stops.
   */
  private readonly terminate = (): void => {
    if (this.stop.clientHasLeft) return;
    const failure = shuttingDown(this.facts.taskId);
    this.facts.outcome = 'shutdown';
    this.run.exchange.fail('gateway-error', failure);
    this.run.answer.fail(failure);
    this.stop.clientLeft('shutting down');
  };

  /**
   * Every observation of the task goes through here, in the order it was made; true once settled.
   * It is also the tracker's gateway-only sighting (the caller's principal owns a task first seen
   * here, as it would through the answer).
   */
  private see(taskId: string | undefined, seen: ReplyFacts): boolean {
    const { exchange, tracker } = this.run;
    const { state, contextId } = seen;
    if (taskId !== undefined && !this.pinned) {
      this.pinned = true; // its replica is known the moment the agent names the task (task affinity)
      const replica = exchange.replica?.url;
      tracker.named({
        agent: exchange.upstream.name,
        replica,
        taskId,
        ...(contextId !== undefined ? { contextId } : {}),
      });
    }
    if (taskId !== undefined && state !== undefined) {
      const agentAt = parseAgentTimestamp(seen.timestamp);
      tracker.observe(exchange.upstream.name, taskId, {
        state,
        at: Date.now(),
        ...(agentAt !== undefined ? { agentAt } : {}),
        ...(contextId !== undefined ? { contextId } : {}),
        principal: exchange.record.access?.principal,
        shown: false,
      });
    }
    if (seen.generation !== undefined && seen.generation > (this.generation ?? 0)) this.generation = seen.generation;
    if (this.settledAt === undefined && this.watch.observe(state, seen.timestamp)) this.settledAt = performance.now();
    return this.settledAt !== undefined;
  }

  private async sendNonBlocking(): Promise<Pending<R, T> | undefined> {
    let first: Reply<R, T>;
    try {
      first = await this.run.caller.sendNonBlocking(this.stop.either.signal);
    } catch (err) {
      // The deadline came first: the agent ignored returnImmediately and is still working on the send.
      if (this.stop.deadlineOnly) return this.agentBlocked();
      throw err;
    }
    const { taskId } = first;
    // Nothing to wait for: the agent's own bytes go back untouched.
    if (first.kind !== 'task' || taskId === undefined || this.see(taskId, first)) {
      this.facts.outcome = first.kind === 'message' ? 'message' : first.kind === 'task' ? 'settled' : 'error';
      if (taskId) this.facts.taskId = taskId;
      this.reply(() => this.run.answer.passOn(first.raw));
      return undefined;
    }
    this.named(taskId);
    return { taskId, latest: first.task, envelope: first.raw };
  }

  /** The task the send created or continued, known before the answer: on the record, and told to
   * whoever waits for it (an idempotent send's outcome, Exchange.taskNamed). */
  private named(taskId: string): void {
    this.facts.taskId = taskId;
    this.run.exchange.taskNamed?.(taskId);
  }

  /** No answer to a returnImmediately send before the deadline: a 504 that says why. */
  private agentBlocked(): undefined {
    const agent = this.run.exchange.upstream.name;
    this.facts.outcome = 'agent-blocked';
    this.run.exchange.record.findings.push({
      rule: 'a2a.return-immediately-ignored',
      count: 1,
      detail: 'no answer to a returnImmediately send before the client deadline',
    });
    this.fail(
      new GatewayError(
        'UPSTREAM_TIMEOUT',
        `agent "${agent}" ignored returnImmediately and did not answer before the client's deadline; the task id is unknown`,
        { agent, cause: 'RETURN_IMMEDIATELY_IGNORED' },
      ),
    );
    return undefined;
  }

  private async sendStreaming(): Promise<Pending<R, T> | undefined> {
    const streamed = await this.followSendStream();
    if (streamed.kind === 'reply') {
      // No task to wait for: the agent's answer goes back as it came.
      this.facts.outcome = streamed.outcome;
      this.reply(() => this.run.answer.passOn(streamed.raw));
      return undefined;
    }
    const agent = this.run.exchange.upstream.name;
    if (streamed.kind === 'none')
      throw new GatewayError('UPSTREAM_INVALID', `agent "${agent}" ended the stream without naming a task`, { agent });
    this.named(streamed.taskId);
    return { taskId: streamed.taskId, latest: streamed.task, envelope: undefined };
  }

  /**
   * Sends as SendStreamingMessage and follows the stream until the task settles or the wait ends.
   * A stream that turns out to carry a Message, or an error, is answered as the SendMessage
   * response the caller asked for: the same payload in the SendMessage envelope.
   */
  private async followSendStream(): Promise<Streamed<R, T>> {
    let found: Streamed<R, T> = { kind: 'none' };
    const onEvent: EventSink<R, T> = (event) => {
      if (found.kind === 'none' && (event.kind === 'message' || event.kind === 'error') && event.asReply) {
        found = { kind: 'reply', outcome: event.kind, raw: event.asReply };
        return true;
      }
      if (found.kind === 'none' && event.taskId) found = { kind: 'task', taskId: event.taskId, task: event.task };
      return found.kind === 'task' && this.see(found.taskId, event);
    };
    try {
      const notStream = await this.run.caller.sendStreaming!(this.stop.either.signal, onEvent);
      if (notStream)
        found = { kind: 'reply', outcome: notStream.kind === 'message' ? 'message' : 'error', raw: notStream.raw };
    } catch (err) {
      if (!this.stop.stoppedWaiting) throw err;
    }
    return found;
  }

  /** SubscribeToTask until a settled state arrives or the stream ends. */
  private async waitBySubscription(taskId: string): Promise<void> {
    try {
      await this.run.caller.subscribe!(taskId, this.stop.either.signal, (event) => this.see(taskId, event));
    } catch {
      // A broken subscription falls back to polling (the caller polls whatever is left).
    }
  }

  /**
   * GetTask with growing intervals (and jitter) until the task settles or the wait ends; returns
   * the last task seen. An agent that keeps a task generation (draft 1.1, wire-reference §7.4)
   * is long-polled: GetTask with `currentGeneration`, which it holds until the task changes, and
   * asked again at once when the generation moved. A reply that did not move it (the agent's own
   * hold timeout, or an agent that does not hold) waits the interval first: "falls back to normal
   * polling if the server returns immediately regardless" (dev-1.1 §3.5.1).
   */
  private async waitByPolling(taskId: string): Promise<T | undefined> {
    const { policy } = this.run;
    const signal = this.stop.either.signal;
    let interval = policy.pollInitial;
    let last: T | undefined;
    let wait = this.generation === undefined;
    while (wait ? await sleep(interval * (0.8 + Math.random() * 0.4), signal) : !signal.aborted) {
      const since = this.generation;
      const polled = await this.poll(taskId, since, signal);
      if (polled === 'stop') break;
      if (polled.task !== undefined) last = polled.task;
      if (polled.settled) return last;
      wait = since === undefined || this.generation === undefined || this.generation <= since;
      if (wait) interval = Math.min(interval * 1.5, policy.pollMax);
    }
    return last;
  }

  /** One GetTask of the wait (a long-poll from `since`, when given); 'stop' once the wait is over. */
  private async poll(
    taskId: string,
    since: number | undefined,
    signal: AbortSignal,
  ): Promise<{ task?: T; settled: boolean } | 'stop'> {
    this.facts.polls++;
    if (since !== undefined) this.facts.longPolls = (this.facts.longPolls ?? 0) + 1;
    try {
      const reply = await this.run.caller.getTask(taskId, signal, since);
      if (reply.kind !== 'task' || reply.task === undefined) return { settled: false };
      return { task: reply.task, settled: this.see(taskId, reply) };
    } catch {
      return signal.aborted ? 'stop' : { settled: false };
    }
  }

  /** Writes the answer while the client can take it; how long it took after the task settled. */
  private reply(write: () => void): void {
    if (this.stop.clientHasLeft || !this.run.answer.writable) return;
    write();
    if (this.settledAt !== undefined)
      this.facts.settleToAnswerMs = Math.round((performance.now() - this.settledAt) * 1000) / 1000;
  }

  private fail(err: GatewayError): void {
    this.run.exchange.fail('upstream-error', err);
    if (!this.stop.clientHasLeft) this.run.answer.fail(err);
  }
}
