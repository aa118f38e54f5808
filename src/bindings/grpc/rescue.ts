/**
 * The timeout rescue on the gRPC binding (issue #16 item 6; the HTTP bindings' is
 * src/rescue/rescue.ts, whose steps this follows): a blocking SendMessage is sent with
 * `return_immediately` (0.3: `blocking: false`), appended to the client's own message
 * (src/a2a/grpc/rescue-wire.ts); what needs no waiting — a Message, an error, a settled task — is
 * passed back exactly as the agent sent it; else the gateway polls GetTask until the task settles
 * or the client's deadline (its `grpc-timeout`, or `X-A2A-Gateway-Timeout`, capped by
 * `timeoutRescue.clientTimeout`) less the margin comes, and answers the agent's own Task, as
 * GetTask returned it, as the SendMessage response, with metadata `a2a-gateway-rescue: settled`
 * or `deadline`. Every state seen is a gateway-only sighting for the task tracker; the agent's
 * task is never canceled.
 */
import { performance } from 'node:perf_hooks';
import type { OutgoingHttpHeaders } from 'node:http2';
import { createResponseDecoder } from '../../a2a/response.js';
import type { RequestFacts } from '../../a2a/request.js';
import { encodeGrpcFrame, GrpcFrameReader } from '../../codec/grpc-frames.js';
import { getTaskRequest, sendMessageResponseOfTask, withReturnImmediately } from '../../a2a/grpc/rescue-wire.js';
import type { AgentConfig } from '../../config/schema.js';
import type { RescueFacts } from '../../exchange/record.js';
import type { TaskState } from '../../a2a/task-state.js';
import { SettleWatch } from '../../rescue/settle.js';
import { sleep } from '../../rescue/sleep.js';
import { clientTimeoutMs, TIMEOUT_HEADER } from '../../rescue/deadline.js';
import { RESCUE_HEADER, shuttingDown } from '../../rescue/rescue.js';
import type { TaskTracker } from '../../tasks/tracker.js';
import { GatewayError, upstreamFailure } from '../../errors/gateway-error.js';
import { grpcFailureOf, sendGrpcFailure } from '../../errors/grpc-answer.js';
import type { GrpcCall } from './call.js';
import type { GrpcChannel } from './channel.js';
import { callUnary, type UnaryReply } from './unary-call.js';
import { StopSignals } from '../../rescue/stop-signals.js';

export interface GrpcRescueRequest {
  readonly call: GrpcCall;
  /** The client's request body: one length-prefixed SendMessageRequest. */
  readonly body: Buffer;
  readonly channel: GrpcChannel;
  /** The upstream headers for an rpc at `path`, with `leftMs` as its deadline. */
  readonly headers: (path: string, leftMs: number) => OutgoingHttpHeaders;
  /** Epoch ms of the client's `grpc-timeout`, if it gave one. */
  readonly deadline: number | undefined;
  readonly tracker: TaskTracker;
  /** Largest message read from the agent. */
  readonly maxBytes: number;
}

export async function rescueGrpcCall(req: GrpcRescueRequest): Promise<void> {
  const rescue = new GrpcRescue(req);
  try {
    await rescue.run();
  } catch (err) {
    rescue.failed(err);
  } finally {
    rescue.end();
  }
}

class GrpcRescue {
  private readonly facts: RescueFacts = { strategy: 'poll', polls: 0 };
  private readonly policy: AgentConfig['timeoutRescue'];
  /** The blocking SendMessage the client sent, as classified. */
  private readonly request: RequestFacts;
  private readonly stop: StopSignals;
  private readonly watch: SettleWatch;
  private readonly answerBy: number;
  private settledAt: number | undefined;

  constructor(private readonly req: GrpcRescueRequest) {
    const { exchange, res, req: http2 } = req.call;
    this.policy = exchange.upstream.config.timeoutRescue;
    this.request = exchange.request!;
    exchange.record.rescue = this.facts;
    const stated = clientTimeoutMs(http2.headers[TIMEOUT_HEADER], this.policy.clientTimeout);
    const grpcLeft = req.deadline === undefined ? Infinity : req.deadline - exchange.record.startedAt;
    this.answerBy = exchange.record.startedAt + Math.min(stated, grpcLeft) - this.policy.margin;
    this.stop = new StopSignals(this.answerBy);
    this.watch = new SettleWatch(this.request.version, this.request.taskId !== undefined);
    res.on('close', this.onClose);
    exchange.terminate = this.terminate;
  }

  async run(): Promise<void> {
    const first = await this.sendNonBlocking();
    if (!first) return;
    const answer = this.decode(first, 'SendMessage');
    if (first.status !== 0 || answer.tag !== 'task' || answer.taskId === undefined || this.see(answer.taskId, answer)) {
      this.facts.outcome =
        first.status !== 0
          ? 'error'
          : answer.tag === 'message'
            ? 'message'
            : answer.tag === 'task'
              ? 'settled'
              : 'error';
      if (answer.taskId) this.facts.taskId = answer.taskId;
      return this.passOn(first);
    }
    this.facts.taskId = answer.taskId;
    const last = await this.poll(answer.taskId);
    const task = (await this.getTask(answer.taskId).catch(() => undefined)) ?? last;
    if (!task?.message) throw new GatewayError('UPSTREAM_INVALID', `GetTask of task ${answer.taskId} answered no task`);
    this.answerTask(first, task.message);
  }

  failed(err: unknown): void {
    if (this.stop.clientHasLeft) return;
    const failure = err instanceof GatewayError ? err : upstreamFailure(err, this.req.call.exchange.upstream.name);
    this.req.call.exchange.fail('upstream-error', failure);
    this.sendFailure(failure);
  }

  end(): void {
    const { exchange, res } = this.req.call;
    this.stop.release();
    res.off('close', this.onClose);
    if (this.stop.clientHasLeft && this.facts.outcome !== 'shutdown') {
      this.facts.outcome = 'client-gone';
      exchange.fail('client-gone', new Error('client went away while the gateway waited for the task'));
    }
    exchange.finish();
  }

  /** 1. The send with return_immediately; undefined when the agent ignored it past the deadline (answered). */
  private async sendNonBlocking(): Promise<UnaryReply | undefined> {
    const message = onlyMessage(this.req.body, this.req.maxBytes);
    const nonBlocking = message && withReturnImmediately(message, this.request.version);
    if (!nonBlocking)
      throw new GatewayError('REQUEST_INVALID', 'a SendMessage request is one uncompressed protobuf message');
    const body = encodeGrpcFrame(nonBlocking);
    try {
      return await this.unary(this.req.call.req.url, body);
    } catch (err) {
      if (!this.stop.deadlineOnly) throw err;
      this.facts.outcome = 'agent-blocked';
      const agent = this.req.call.exchange.upstream.name;
      const failure = new GatewayError(
        'UPSTREAM_TIMEOUT',
        `agent "${agent}" ignored returnImmediately and did not answer before the client's deadline; the task id is unknown`,
        { agent, cause: 'RETURN_IMMEDIATELY_IGNORED' },
      );
      this.req.call.exchange.fail('upstream-error', failure);
      this.sendFailure(failure);
      return undefined;
    }
  }

  /** 3. GetTask with growing intervals (and jitter) until settled or the wait ends; the last Task seen. */
  private async poll(taskId: string): Promise<UnaryReply | undefined> {
    let interval = this.policy.pollInitial;
    let last: UnaryReply | undefined;
    while (await sleep(interval * (0.8 + Math.random() * 0.4), this.stop.either.signal)) {
      this.facts.polls++;
      const reply = await this.getTask(taskId).catch(() => undefined);
      if (reply?.status === 0 && reply.message) {
        last = reply;
        if (this.see(taskId, this.decode(reply, 'GetTask'))) return last;
      }
      interval = Math.min(interval * 1.5, this.policy.pollMax);
    }
    return last;
  }

  private getTask(taskId: string): Promise<UnaryReply> {
    const path = this.req.call.req.url.replace(/[^/]+$/, 'GetTask');
    const message = getTaskRequest(taskId, this.request.version, this.request.historyLength);
    const signal = this.stop.clientGone.signal;
    return this.unary(path, encodeGrpcFrame(message), signal);
  }

  private unary(path: string, body: Uint8Array, signal = this.stop.either.signal): Promise<UnaryReply> {
    const left = Math.max(1, this.answerBy - Date.now() + this.policy.margin);
    return callUnary(this.req.channel, this.req.headers(path, left), body, this.req.maxBytes, signal);
  }

  private decode(reply: UnaryReply, operation: 'SendMessage' | 'GetTask') {
    const decoder = createResponseDecoder(
      { ...this.request, operation },
      { status: 200, contentType: 'application/grpc' },
      {
        maxBytes: this.req.maxBytes,
      },
    );
    for (const chunk of reply.chunks) decoder.push(chunk);
    return decoder.end({ trailers: reply.trailers });
  }

  /** Every observation: a gateway-only sighting for the tracker; true once settled. */
  private see(taskId: string, seen: { state?: TaskState; contextId?: string }): boolean {
    const { exchange } = this.req.call;
    if (seen.state !== undefined) {
      this.req.tracker.observe(exchange.upstream.name, taskId, {
        state: seen.state,
        at: Date.now(),
        ...(seen.contextId !== undefined ? { contextId: seen.contextId } : {}),
        principal: exchange.record.access?.principal,
        shown: false,
      });
    }
    if (this.settledAt === undefined && this.watch.observe(seen.state)) this.settledAt = performance.now();
    return this.settledAt !== undefined;
  }

  /** 2. The agent's answer, exactly as it came. */
  private passOn(reply: UnaryReply): void {
    const trailersOnly = reply.headers === reply.trailers;
    this.write(withoutPseudo(reply.headers), reply.chunks, trailersOnly ? undefined : reply.trailers);
  }

  /** 4. The agent's Task, as GetTask returned it, in a SendMessageResponse. */
  private answerTask(first: UnaryReply, task: Uint8Array): void {
    const outcome = this.settledAt !== undefined ? 'settled' : 'deadline';
    this.facts.outcome = outcome;
    const headers = withoutPseudo(first.headers);
    const body = Buffer.from(encodeGrpcFrame(sendMessageResponseOfTask(task, this.request.version)));
    this.write({ ...headers, [RESCUE_HEADER]: outcome }, [body], { 'grpc-status': '0' });
    if (this.settledAt !== undefined) {
      this.facts.settleToAnswerMs = Math.round((performance.now() - this.settledAt) * 1000) / 1000;
    }
  }

  private write(
    head: Record<string, string | string[]>,
    chunks: Buffer[],
    trailers: Record<string, unknown> | undefined,
  ): void {
    const { exchange, res } = this.req.call;
    if (this.stop.clientHasLeft || res.headersSent || res.stream.destroyed) return;
    exchange.emit('onResponseStart', 200, head);
    if (!trailers) {
      // The agent's answer was trailers-only: so is the one passed on.
      exchange.responseTrailers = head;
      res.stream.respond({ ':status': 200, ...head }, { endStream: true });
      return;
    }
    res.writeHead(200, head);
    for (const chunk of chunks) {
      exchange.record.bytesOut += chunk.length;
      exchange.emit('onResponseChunk', chunk);
      res.write(chunk);
    }
    const relayed = withoutPseudo(trailers);
    exchange.responseTrailers = relayed;
    res.addTrailers(relayed);
    res.end();
  }

  private sendFailure(failure: GatewayError): void {
    const trailers = sendGrpcFailure(this.req.call.res, grpcFailureOf(failure));
    if (trailers) this.req.call.exchange.responseTrailers = trailers;
  }

  private readonly onClose = (): void => {
    if (!this.req.call.res.writableFinished) this.stop.clientLeft('client gone');
  };

  /** Graceful shutdown after its grace: answered now, with the task id when known. */
  private readonly terminate = (): void => {
    if (this.stop.clientHasLeft) return;
    const failure = shuttingDown(this.facts.taskId);
    this.facts.outcome = 'shutdown';
    this.req.call.exchange.fail('gateway-error', failure);
    this.sendFailure(failure);
    this.stop.clientLeft('shutting down');
  };
}

/** The one message of a request body, or undefined when it is not exactly one uncompressed message. */
function onlyMessage(body: Buffer, maxBytes: number): Uint8Array | undefined {
  const reader = new GrpcFrameReader(maxBytes);
  const messages: Uint8Array[] = [];
  let compressed = false;
  reader.push(body, (message, c) => {
    messages.push(message);
    compressed ||= c;
  });
  return messages.length === 1 && !compressed && !reader.midMessage ? messages[0] : undefined;
}

/** A header block without its pseudo-headers (the listener writes `:status`). */
function withoutPseudo(headers: Record<string, unknown>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!name.startsWith(':') && value !== undefined) out[name] = value as string | string[];
  }
  return out;
}
