/**
 * Timeout rescue (docs/operations.md "Timeout rescue"). A blocking SendMessage holds the HTTP request open
 * until the task is terminal or interrupted, with no time limit in the spec (wire-reference §5.1);
 * client libraries and load balancers time out after 5–60 s, so the client gives up first and
 * never learns the task id. For agents with `timeoutRescue.enabled`, a `Rescue` instead:
 *   1. sends it with returnImmediately (0.3: blocking false) — or as SendStreamingMessage,
 *   2. answers at once what needs no waiting (a Message, an error, a settled task), exactly as sent,
 *   3. else waits server-side (SubscribeToTask, or GetTask polls) until the task settles or the
 *      client's deadline minus the margin comes,
 *   4. fetches the Task with one GetTask (the client's historyLength) and answers it in the
 *      caller's own envelope: settled, or at the deadline the latest snapshot with its id.
 * `send()` is steps 1–2, `waitUntilSettled()` step 3, `answer()` step 4.
 * Every state the rescue sees goes to the task tracker as a gateway-only sighting (`shown:
 * false`): the client has not seen it yet; the inspector's sighting of the answer shows it
 * (src/tasks/story.ts; the console's task timeline draws the difference).
 * The agent's task is never canceled, whatever happens to the client.
 */
import type { ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { TaskState } from '../a2a/task-state.js';
import { SettleWatch } from './settle.js';
import { sleep } from './sleep.js';
import { contentTypeFor } from '../a2a/content-type.js';
import type { Exchange } from '../exchange/exchange.js';
import type { RescueFacts, RescueStrategy } from '../exchange/record.js';
import type { ErrorContext } from '../errors/json-answer.js';
import { sendGatewayError } from '../errors/json-answer.js';
import { GatewayError, upstreamFailure } from '../errors/gateway-error.js';
import type { AgentConfig } from '../config/schema.js';
import type { TaskTracker } from '../tasks/tracker.js';
import { callJson, followEvents, headersFor, type JsonReply } from './calls.js';
import { StopSignals } from './stop-signals.js';
import {
  getTaskCall,
  nonBlockingBody,
  readGetTaskResponse,
  readSendResponse,
  readStreamEvent,
  streamingRequest,
  subscribeCall,
  withTask,
  type BlockingSend,
} from './wire.js';

export const RESCUE_HEADER = 'a2a-gateway-rescue';

export interface RescueRequest {
  readonly exchange: Exchange;
  /** The client's response, where the answer goes (src/bindings/http/http-call.ts). */
  readonly res: ServerResponse;
  readonly send: BlockingSend;
  /** The caller's headers as forwarded upstream (auth, version, extensions, traceparent). */
  readonly headers: string[];
  readonly policy: AgentConfig['timeoutRescue'];
  readonly strategy: RescueStrategy;
  /** Epoch ms at which the client must have its answer (deadline − margin). */
  readonly answerBy: number;
  readonly errorContext: ErrorContext;
  /** Hears every state the rescue sees (gateway-only sightings). */
  readonly tracker: TaskTracker;
}

/** The answer to a rescued call at the end of the shutdown grace: the task id when known, so the
 * client can poll it on another instance (both bindings' rescues: this file, src/bindings/grpc/rescue.ts). */
export function shuttingDown(taskId: string | undefined): GatewayError {
  const message = taskId
    ? `the gateway is shutting down; task ${taskId} goes on at the agent: poll it with GetTask or subscribe to it`
    : 'the gateway is shutting down; retry on another instance';
  return new GatewayError('SHUTTING_DOWN', message, taskId ? { taskId } : {});
}

export async function runRescue(req: RescueRequest): Promise<void> {
  const rescue = new Rescue(req);
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

/** The task a send left to wait for. */
interface Pending {
  readonly taskId: string;
  /** The latest Task the agent has shown, if any: the answer at the deadline. */
  latest: Record<string, unknown> | undefined;
  /** The SendMessage response the answer goes back in. */
  readonly envelope: { status: number; headers: string[]; doc: Record<string, unknown> };
}

type Streamed =
  | { kind: 'task'; taskId: string; task: Record<string, unknown> | undefined }
  | { kind: 'reply'; reply: JsonReply; outcome: 'message' | 'error' }
  | { kind: 'none' };

class Rescue {
  private readonly facts: RescueFacts;
  /** Two reasons to stop waiting: the client left (stop everything), the deadline came (answer). */
  private readonly stop: StopSignals;
  private readonly watch: SettleWatch;
  /** performance.now() when the task was first seen settled. */
  private settledAt: number | undefined;

  constructor(private readonly req: RescueRequest) {
    this.facts = { strategy: req.strategy, polls: 0 };
    req.exchange.record.rescue = this.facts;
    req.res.on('close', this.onClose);
    req.exchange.terminate = this.terminate;
    this.stop = new StopSignals(req.answerBy);
    this.watch = new SettleWatch(req.send.version, req.send.followUp);
  }

  /** 1. The send: non-blocking, or as a stream whose first event names the task. 2. What needs no
   * waiting is answered here, as the agent sent it. Returns the task to wait for, if there is one. */
  send(): Promise<Pending | undefined> {
    return this.req.strategy === 'stream' ? this.sendStreaming() : this.sendNonBlocking();
  }

  /** 3. Waits server-side: the subscription first (when chosen), polling for whatever is left. */
  async waitUntilSettled(pending: Pending): Promise<void> {
    if (this.settledAt === undefined && !this.stop.stoppedWaiting && this.req.strategy === 'subscribe') {
      await this.waitBySubscription(pending.taskId);
    }
    if (this.settledAt === undefined && !this.stop.stoppedWaiting) {
      const polled = await this.waitByPolling(pending.taskId);
      if (polled) pending.latest = polled;
    }
  }

  /** 4. The agent's own Task, as GetTask returns it, in the caller's envelope. */
  async answer(pending: Pending): Promise<void> {
    if (this.stop.clientHasLeft) return;
    const { exchange, send } = this.req;
    const call = getTaskCall(send, pending.taskId);
    const headers = headersFor(this.req.headers, call);
    try {
      const fetched = await callJson(exchange.upstream, call, headers, this.stop.clientGone.signal);
      const task = readGetTaskResponse(send, fetched.doc);
      if (task.kind !== 'task' && !pending.latest) this.facts.outcome = 'error';
      if (task.kind === 'task') {
        pending.latest = task.task;
        this.see(pending.taskId, task, task.timestamp);
      }
    } catch (err) {
      if (this.stop.clientHasLeft) return;
      if (!pending.latest) throw err; // nothing to answer with
    }
    if (!pending.latest) {
      // Only a status event named the task and GetTask does not know it: the gateway does not
      // make a Task up (it answers with the agent's own), so it says what happened instead.
      throw new GatewayError(
        'UPSTREAM_INVALID',
        `agent "${exchange.upstream.name}" reported task ${pending.taskId} but GetTask does not return it`,
        { agent: exchange.upstream.name, taskId: pending.taskId },
      );
    }
    const outcome = this.settledAt !== undefined ? 'settled' : 'deadline';
    this.facts.outcome = outcome;
    const { envelope } = pending;
    this.reply(envelope.status, envelope.headers, withTask(send, envelope.doc, pending.latest), outcome);
  }

  /** Anything that went wrong on the way, answered in the caller's protocol (unless it left). */
  failed(err: unknown): void {
    if (this.stop.clientHasLeft) return;
    this.fail(upstreamFailure(err, this.req.exchange.upstream.name));
  }

  /** Always last: the exchange finishes, exactly once (principle 8). */
  end(): void {
    const { exchange } = this.req;
    this.stop.release();
    this.req.res.off('close', this.onClose);
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
    const { exchange } = this.req;
    if (this.stop.clientHasLeft) return;
    const failure = shuttingDown(this.facts.taskId);
    this.facts.outcome = 'shutdown';
    exchange.fail('gateway-error', failure);
    if (this.req.res.headersSent) this.req.res.destroy();
    else sendGatewayError(this.req.res, failure, this.req.errorContext);
    this.stop.clientLeft('shutting down');
  };

  private readonly onClose = (): void => {
    if (!this.req.res.writableFinished) this.stop.clientLeft('client gone');
  };

  /**
   * Every observation of the task goes through here, in the order it was made; true once settled.
   * It is also the tracker's gateway-only sighting (the caller's principal owns a task first seen
   * here, as it would through the answer).
   */
  private see(taskId: string | undefined, seen: { state?: TaskState; task?: unknown }, timestamp?: string): boolean {
    const { state } = seen;
    if (taskId !== undefined && state !== undefined) {
      const contextId = (seen.task as { contextId?: unknown } | undefined)?.contextId;
      this.req.tracker.observe(this.req.exchange.upstream.name, taskId, {
        state,
        at: Date.now(),
        ...(typeof contextId === 'string' ? { contextId } : {}),
        principal: this.req.exchange.record.access?.principal,
        shown: false,
      });
    }
    if (this.settledAt === undefined && this.watch.observe(state, timestamp)) this.settledAt = performance.now();
    return this.settledAt !== undefined;
  }

  private async sendNonBlocking(): Promise<Pending | undefined> {
    const { exchange, send } = this.req;
    const call = { method: 'POST' as const, path: send.path, body: nonBlockingBody(send) };
    let first: JsonReply;
    try {
      first = await callJson(exchange.upstream, call, headersFor(this.req.headers, call), this.stop.either.signal);
    } catch (err) {
      // The deadline came first: the agent ignored returnImmediately and is still working on the send.
      if (this.stop.deadlineOnly) return this.agentBlocked();
      throw err;
    }
    const result = readSendResponse(send, first.doc);
    // Nothing to wait for: the agent's own bytes go back untouched.
    if (result.kind !== 'task' || this.see(result.taskId, result, result.timestamp)) {
      this.facts.outcome = result.kind === 'message' ? 'message' : result.kind === 'task' ? 'settled' : 'error';
      if (result.kind === 'task') this.facts.taskId = result.taskId;
      this.reply(first.status, first.headers, first.body);
      return undefined;
    }
    this.facts.taskId = result.taskId;
    const envelope = { status: first.status, headers: first.headers, doc: first.doc as Record<string, unknown> };
    return { taskId: result.taskId, latest: result.task, envelope };
  }

  /** No answer to a returnImmediately send before the deadline: a 504 that says why. */
  private agentBlocked(): undefined {
    const agent = this.req.exchange.upstream.name;
    this.facts.outcome = 'agent-blocked';
    this.req.exchange.record.findings.push({
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

  private async sendStreaming(): Promise<Pending | undefined> {
    const { send } = this.req;
    const streamed = await this.followSendStream();
    if (streamed.kind === 'reply') {
      // No task to wait for: the agent's answer goes back as it came.
      this.facts.outcome = streamed.outcome;
      this.reply(streamed.reply.status, streamed.reply.headers, streamed.reply.body);
      return undefined;
    }
    const agent = this.req.exchange.upstream.name;
    if (streamed.kind === 'none')
      throw new GatewayError('UPSTREAM_INVALID', `agent "${agent}" ended the stream without naming a task`, { agent });
    this.facts.taskId = streamed.taskId;
    const envelope = {
      status: 200,
      headers: ['content-type', contentTypeFor(send.binding, send.version)],
      doc: envelopeFor(send),
    };
    return { taskId: streamed.taskId, latest: streamed.task, envelope };
  }

  /**
   * Sends as SendStreamingMessage and follows the stream until the task settles or the wait ends.
   * A stream that turns out to carry a Message, or an error, is answered as the SendMessage
   * response the caller asked for: the same payload in the SendMessage envelope.
   */
  private async followSendStream(): Promise<Streamed> {
    const { send } = this.req;
    const call = { method: 'POST' as const, ...streamingRequest(send) };
    let found: Streamed = { kind: 'none' };
    const onEvent = (doc: unknown): boolean => {
      const event = readStreamEvent(send, doc);
      if (found.kind === 'none' && (event.message || event.error)) {
        found = { kind: 'reply', outcome: event.message ? 'message' : 'error', reply: eventReply(send, doc, event) };
        return true;
      }
      if (found.kind === 'none' && event.taskId) found = { kind: 'task', taskId: event.taskId, task: event.task };
      return found.kind === 'task' && this.see(found.taskId, event, event.timestamp);
    };
    try {
      const headers = headersFor(this.req.headers, call, 'text/event-stream');
      const { notStream } = await followEvents(
        this.req.exchange.upstream,
        call,
        headers,
        this.stop.either.signal,
        onEvent,
      );
      if (notStream) {
        const outcome = readSendResponse(send, notStream.doc).kind === 'message' ? 'message' : 'error';
        found = { kind: 'reply', outcome, reply: notStream };
      }
    } catch (err) {
      if (!this.stop.stoppedWaiting) throw err;
    }
    return found;
  }

  /** SubscribeToTask until a settled state arrives or the stream ends. */
  private async waitBySubscription(taskId: string): Promise<void> {
    const { send } = this.req;
    const follow = (verb: 'GET' | 'POST') => {
      const call = subscribeCall(send, taskId, verb);
      const headers = headersFor(this.req.headers, call, 'text/event-stream');
      return followEvents(this.req.exchange.upstream, call, headers, this.stop.either.signal, (doc) => {
        const event = readStreamEvent(send, doc);
        return this.see(taskId, event, event.timestamp);
      });
    };
    try {
      const { status } = await follow('POST');
      // REST subscribe: the proto says GET, the spec POST (wire-reference §7.1 #2): try the other.
      if (send.binding === 'rest' && (status === 404 || status === 405)) await follow('GET');
    } catch {
      // A broken subscription falls back to polling (the caller polls whatever is left).
    }
  }

  /** GetTask with growing intervals (and jitter) until the task settles or the wait ends; returns
   * the last task seen. */
  private async waitByPolling(taskId: string): Promise<Record<string, unknown> | undefined> {
    const { policy, send } = this.req;
    const signal = this.stop.either.signal;
    let interval = policy.pollInitial;
    let last: Record<string, unknown> | undefined;
    while (await sleep(interval * (0.8 + Math.random() * 0.4), signal)) {
      const call = getTaskCall(send, taskId);
      this.facts.polls++;
      try {
        const reply = await callJson(this.req.exchange.upstream, call, headersFor(this.req.headers, call), signal);
        const task = readGetTaskResponse(send, reply.doc);
        if (task.kind === 'task') {
          last = task.task;
          if (this.see(taskId, task, task.timestamp)) return last;
        }
      } catch {
        if (signal.aborted) break;
      }
      interval = Math.min(interval * 1.5, policy.pollMax);
    }
    return last;
  }

  private reply(status: number, headers: string[], body: Buffer, rescue?: 'settled' | 'deadline'): void {
    const { exchange } = this.req;
    if (this.stop.clientHasLeft || this.req.res.headersSent) return;
    const out: string[] = [];
    for (let i = 0; i < headers.length; i += 2)
      if (headers[i]!.toLowerCase() !== 'content-length') out.push(headers[i]!, headers[i + 1]!);
    out.push('content-length', String(body.length));
    if (rescue) out.push(RESCUE_HEADER, rescue);
    const asObject: Record<string, string> = {};
    for (let i = 0; i < out.length; i += 2) asObject[out[i]!.toLowerCase()] = out[i + 1]!;
    exchange.record.status = status;
    exchange.record.bytesOut += body.length;
    exchange.emit('onResponseStart', status, asObject);
    exchange.emit('onResponseChunk', body);
    this.req.res.writeHead(status, out);
    this.req.res.end(body);
    if (this.settledAt !== undefined)
      this.facts.settleToAnswerMs = Math.round((performance.now() - this.settledAt) * 1000) / 1000;
  }

  private fail(err: GatewayError): void {
    this.req.exchange.fail('upstream-error', err);
    if (!this.stop.clientHasLeft) sendGatewayError(this.req.res, err, this.req.errorContext);
  }
}

/** The SendMessage envelope for a task that arrived by stream (no plain response to reuse). */
function envelopeFor(send: BlockingSend): Record<string, unknown> {
  return send.binding === 'jsonrpc' ? { jsonrpc: '2.0', id: send.jsonrpcId, result: {} } : {};
}

/** A stream's first event that is a Message or an error, as the SendMessage response. */
function eventReply(send: BlockingSend, doc: unknown, event: { message?: true; error?: true }): JsonReply {
  const status = event.error && send.binding === 'rest' ? restErrorStatus(doc) : 200;
  const body = event.message ? messageEnvelope(send, doc) : Buffer.from(JSON.stringify(doc));
  return { status, headers: ['content-type', contentTypeFor(send.binding, send.version)], body, doc };
}

/** A stream's message event, re-wrapped as a SendMessage response (wire-reference §2.4, §6.3). */
function messageEnvelope(send: BlockingSend, eventDoc: unknown): Buffer {
  const doc = eventDoc as Record<string, unknown>;
  if (send.binding === 'jsonrpc') return Buffer.from(JSON.stringify({ ...doc, id: send.jsonrpcId }));
  return Buffer.from(JSON.stringify(doc));
}

function restErrorStatus(doc: unknown): number {
  const code = (doc as { error?: { code?: unknown } }).error?.code;
  return typeof code === 'number' && code >= 400 && code < 600 ? code : 500;
}
