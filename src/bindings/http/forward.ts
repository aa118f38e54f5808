/**
 * Sends one exchange to its agent and relays the answer as it arrives: headers when they come,
 * each body chunk written the moment undici hands it over (SSE events are never held back),
 * backpressure from the client paused onto the upstream socket. The response body is passed on
 * byte for byte; only an explicit rewrite (agent cards) may replace it.
 *
 * `Relay` is the undici dispatch handler: one object per exchange whose methods are undici's
 * callbacks, in the order undici calls them; the hot path (principle 14) makes no closure per
 * chunk.
 */
import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import type { Exchange, ResponseHeaders } from '../../exchange/exchange.js';
import { clientResponseHeaders } from '../../transport/headers.js';
import { GatewayError, UPSTREAM_REASONS, upstreamFailure } from '../../errors/gateway-error.js';
import type { ErrorContext } from '../../errors/json-answer.js';
import { sendGatewayError, sseErrorEvent } from '../../errors/json-answer.js';
import { RewriteBuffer } from './rewrite-buffer.js';
import type { BodyRewrite } from '../../exchange/answer-rewrite.js';
import { SseKeepalive } from './sse-keepalive.js';
import { endingByReset } from '../../transport/upstream.js';
import type { Replica } from '../../transport/replica.js';
import type { ResumableStream } from '../../resume/stream-ids.js';

export type { BodyRewrite } from '../../exchange/answer-rewrite.js';

export interface ForwardRequest {
  readonly method: Dispatcher.HttpMethod;
  readonly headers: string[];
  readonly body: Buffer | Readable | null;
  /** How to answer the caller in its own protocol if the gateway must produce an error. */
  readonly errorContext: ErrorContext;
  /** Quiet time after which an SSE comment is written between events (0: never). */
  readonly keepaliveMs: number;
  /** A long-lived stream: sent on the replica's stream pool, apart from unary calls. */
  readonly stream: boolean;
  /** The agent's replica the call goes to (pipeline step 3c, src/fleet/placement.ts). */
  readonly replica: Replica;
  /**
   * Stream resume (src/resume/): ids added to the SSE events and the window written; with
   * `graceMs`, a stream whose client left is read on that long (docs/fleet.md "Stream resume").
   */
  readonly resume?: { readonly stream: ResumableStream; readonly graceMs: number };
  /**
   * The client's SSE answer has started already (a resume's replay, src/bindings/http/resume.ts):
   * the agent's events go on in it; anything but a 200 event stream ends it with an error event.
   */
  readonly continuing?: boolean;
  /** Path (and query) on the agent, when not the exchange's own (a continuation's SubscribeToTask). */
  readonly path?: string;
  /** Chosen when the response starts (status and headers known). */
  rewriteFor?(status: number, headers: ResponseHeaders): BodyRewrite | undefined;
  /**
   * A translated call (src/translate/): an SSE answer is translated event by event with what this
   * makes, and observers see the translated bytes (the rewrite of a unary answer hands them its
   * body), not the agent's.
   */
  readonly translateEvents?: () => EventTranslator;
}

/** Translates an SSE answer as it passes (src/translate/event-stream.ts). */
export interface EventTranslator {
  /** Whole translated events for `chunk` (undefined: none complete yet, or failed). */
  push(chunk: Buffer): Buffer | undefined;
  /** Set once an event could not be translated: the stream ends with an error event. */
  readonly failure: string | undefined;
  /** Bytes of an unfinished event are held. */
  readonly holding: boolean;
}

/** Resolves when the exchange has finished: the body ended, the client left, or the agent failed. */
export function forward(exchange: Exchange, res: ServerResponse, request: ForwardRequest): Promise<void> {
  const relay = new Relay(exchange, res, request);
  relay.dispatch();
  return relay.done;
}

/** Gateway errors that are the agent's doing (the rest are the gateway's or the client's). */
const AGENT_FAULTS: ReadonlySet<string> = new Set(UPSTREAM_REASONS);

function cut(how: string): GatewayError {
  return new GatewayError('UPSTREAM_RESET', `the agent's connection ${how} before the answer was complete`);
}

/** Aborts the agent's call once the client has left (a class, so onResponseError can tell it apart). */
class ClientGone extends GatewayError {
  constructor() {
    super('CLIENT_GONE', 'client went away');
  }
}

function isEventStream(headers: ResponseHeaders): boolean {
  const type = headers['content-type'];
  return typeof type === 'string' && type.startsWith('text/event-stream');
}

/** The grace period ran out: the agent's stream is canceled (onResponseError ends the window, cut). */
function abortAfterGrace(controller: Dispatcher.DispatchController): void {
  controller.abort(new ClientGone());
}

/** The queue timer's callback: a function of the relay, not a closure per exchange. */
function queueTimeout(relay: Relay): void {
  relay.onQueueTimeout();
}

/**
 * undici's adapter for dispatch handlers (UnwrapHandler) keeps the response's raw header Buffers
 * on the controller for the whole response: ~1.6 KB per open stream (bench/RESULTS.md, "Light
 * streams"). The relay reads the parsed headers only, so it lets them go. The field is not part
 * of the DispatchController type; without it (another undici) this does nothing.
 */
function releaseRawHeaders(controller: Dispatcher.DispatchController): void {
  const c = controller as { rawHeaders?: unknown };
  if (c.rawHeaders) c.rawHeaders = null;
}

class Relay implements Dispatcher.DispatchHandler {
  /** Settles once, when the exchange finishes. */
  readonly done: Promise<void>;
  private resolveDone!: () => void;
  private controller: Dispatcher.DispatchController | undefined;
  /** Set for an SSE response: where the stream stands, and its keepalive comments. */
  private sse: SseKeepalive | undefined;
  /** Set while a body to be rewritten is held back. */
  private rewrite: RewriteBuffer | undefined;
  /** The body ends when the agent closes the connection (no Content-Length, not chunked). */
  private closeDelimited = false;
  /** The agent's Content-Length goes to the client too: a cut body can only be a cut connection. */
  private lengthFramed = false;
  /** Runs while the request waits for a free connection to the agent. */
  private queued: NodeJS.Timeout | undefined;
  private finished = false;
  /** Set for a translated SSE answer (ForwardRequest.translateEvents). */
  private events: EventTranslator | undefined;
  /** The resumable stream, once its answer is known to be a 200 event stream. */
  private resumable: ResumableStream | undefined;
  /** How it ends if it ends now: `end` once the agent's stream is over. */
  private resumeEnd: 'end' | 'cut' = 'cut';
  /** The client left and the agent's stream is read on into the window until this fires. */
  private graceTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly exchange: Exchange,
    /** The client's response (src/bindings/http/http-call.ts). */
    private readonly res: ServerResponse,
    private readonly request: ForwardRequest,
  ) {
    this.done = new Promise<void>((resolve) => (this.resolveDone = resolve));
    this.res.on('close', this.onClientClose);
    exchange.terminate = this.terminate;
    // A continuation writes into an SSE answer standing between two events: a failure is an error event.
    if (request.continuing) this.sse = new SseKeepalive(res, exchange.record);
  }

  dispatch(): void {
    const { upstream } = this.exchange;
    const { method, headers, body, stream, replica } = this.request;
    const queueMs = upstream.config.timeouts.queue;
    if (queueMs > 0) {
      this.queued = setTimeout(queueTimeout, queueMs, this);
      this.queued.unref();
    }
    try {
      const pool = stream ? replica.streams : replica.pool;
      const path = this.request.path ?? this.exchange.upstreamPath;
      pool.dispatch({ path, method, headers, body }, this);
    } catch (err) {
      const failure = err instanceof GatewayError ? err : upstreamFailure(err, upstream.name);
      this.exchange.fail('gateway-error', failure);
      sendGatewayError(this.res, failure, this.request.errorContext);
      this.finish();
    }
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    clearTimeout(this.queued);
    this.queued = undefined; // not kept for the stream's whole life
    // Answered already (the client left, or the wait for a connection ran out): never sent.
    if (this.finished) controller.abort(new ClientGone());
  }

  onResponseStart(controller: Dispatcher.DispatchController, status: number, headers: ResponseHeaders): void {
    if (status < 200) return; // 1xx: Node answers Expect itself; nothing to relay.
    releaseRawHeaders(controller);
    if (this.request.continuing) return this.continueAnswer(controller, status, headers);
    const { exchange, request } = this;
    exchange.record.status = status;
    exchange.replicaStatus = status;
    this.lengthFramed = headers['content-length'] !== undefined;
    this.closeDelimited = !this.lengthFramed && headers['transfer-encoding'] === undefined;
    const eventStream = isEventStream(headers);
    const out = clientResponseHeaders(headers);
    // Tell any buffering proxy in front of us to stream (nginx buffers responses by default).
    if (eventStream && headers['x-accel-buffering'] === undefined) out.push('x-accel-buffering', 'no');
    exchange.emit('onResponseStart', status, headers);
    if (eventStream) this.sse = new SseKeepalive(this.res, exchange.record);
    if (eventStream && request.translateEvents) this.events = request.translateEvents();
    if (eventStream && status === 200 && request.resume) this.resumable = request.resume.stream;
    const rewrite = this.events ? undefined : request.rewriteFor?.(status, headers);
    if (rewrite) {
      this.rewrite = new RewriteBuffer(rewrite, status, out);
      return;
    }
    this.res.writeHead(status, out);
    if (this.sse && request.keepaliveMs > 0) this.sse.start(request.keepaliveMs);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.graceTimer !== undefined) return void this.resumable!.push(chunk); // into the window only
    const { exchange } = this;
    exchange.record.bytesOut += chunk.length;
    if (this.request.translateEvents === undefined) exchange.emit('onResponseChunk', chunk);
    if (this.rewrite) {
      if (this.rewrite.push(this.res, chunk)) return;
      const refusal = this.rewrite.oversize;
      this.rewrite = undefined; // too large: relayed unchanged, or refused
      if (refusal) {
        this.onResponseError(controller, refusal);
        controller.abort(new ClientGone());
      }
      return;
    }
    const plain = this.events === undefined ? chunk : this.translated(controller, chunk);
    if (plain === undefined) return; // an event not whole yet, or the translation failed
    const out = this.resumable === undefined ? plain : this.resumable.push(plain);
    if (out === undefined) return; // an event not whole yet (resume holds it until its end)
    this.sse?.refresh(out); // quiet time counts from the agent's last bytes
    if (!this.res.write(out)) {
      controller.pause();
      this.res.once('drain', (this.resumeUpstream ??= () => this.controller?.resume()));
    }
  }

  onResponseEnd(controller: Dispatcher.DispatchController): void {
    if (this.graceTimer !== undefined) return this.endGrace('end');
    if (this.events?.holding) return this.endTranslationFailed(controller, 'the stream ended inside an event');
    if (this.resumable) this.flushResumable(endingByReset() ? 'cut' : 'end');
    // A close-delimited body ends at the close: cut by a reset, or (SSE) inside an event, it
    // must not reach the client as a complete answer.
    if (this.closeDelimited && endingByReset()) return this.onResponseError(controller, cut('was reset'));
    if (this.closeDelimited && this.sse && !this.sse.atEventBoundary) {
      return this.endMidEvent(cut('closed in the middle of an event'));
    }
    if (this.rewrite) return void this.endRewritten(controller, this.rewrite);
    this.res.end();
    this.finish();
  }

  /** The agent's chunk as translated events; a failure ends the stream (undefined then). */
  private translated(controller: Dispatcher.DispatchController, chunk: Buffer): Buffer | undefined {
    const events = this.events!;
    const out = events.push(chunk);
    if (out !== undefined) this.exchange.emit('onResponseChunk', out);
    if (events.failure === undefined) return out;
    if (out !== undefined) this.res.write(out);
    this.endTranslationFailed(controller, events.failure);
    return undefined;
  }

  /** An event the gateway cannot translate: the stream ends with an error event, the agent's is canceled. */
  private endTranslationFailed(controller: Dispatcher.DispatchController, why: string): void {
    const { exchange } = this;
    const message = `the agent's answer cannot be translated: ${why}`;
    const failure = new GatewayError('UPSTREAM_INVALID', message, { agent: exchange.upstream.name });
    exchange.fail('upstream-error', failure);
    if (exchange.record.translation) exchange.record.translation.outcome = 'answer-failed';
    this.res.end(sseErrorEvent(failure, this.request.errorContext));
    this.finish();
    controller.abort(new ClientGone());
  }

  /** A resume's continuation: the agent's events go into the SSE answer the replay started. */
  private continueAnswer(controller: Dispatcher.DispatchController, status: number, headers: ResponseHeaders): void {
    const eventStream = isEventStream(headers);
    if (status !== 200 || !eventStream) {
      const message = `the agent answered the SubscribeToTask that continues the stream with ${status}, not an event stream`;
      const failure = new GatewayError('UPSTREAM_INVALID', message, { agent: this.exchange.upstream.name });
      this.exchange.fail('upstream-error', failure);
      this.res.end(sseErrorEvent(failure, this.request.errorContext));
      this.finish();
      return controller.abort(new ClientGone());
    }
    this.resumable = this.request.resume?.stream;
    this.events = this.request.translateEvents?.();
    if (this.request.keepaliveMs > 0) this.sse!.start(this.request.keepaliveMs);
  }

  /** The agent's stream is over: the end marker, and the bytes of an event it ended inside of. */
  private flushResumable(how: 'end' | 'cut'): void {
    // Ended inside an event: a cut, whatever the transport says (the client gets an error event).
    this.resumeEnd = this.resumable!.holding ? 'cut' : how;
    const rest = this.resumable!.end(this.resumeEnd);
    if (rest.length === 0) return;
    this.sse?.refresh(rest);
    this.res.write(rest);
  }

  /** The client left a named resumable stream: read the agent's on into the window for the grace period. */
  private readOnAfterClient(controller: Dispatcher.DispatchController, graceMs: number): void {
    this.graceTimer = setTimeout(abortAfterGrace, graceMs, controller);
    this.graceTimer.unref();
    controller.resume(); // paused by the client's backpressure: nobody waits for these bytes now
  }

  /** The grace read is over (the agent's end, or an error, or the abort when grace ran out). */
  private endGrace(how: 'end' | 'cut'): void {
    clearTimeout(this.graceTimer);
    this.resumable!.end(how);
  }

  /** The held body, rewritten (a rewrite may look something up first: ListTasks owners). */
  private async endRewritten(controller: Dispatcher.DispatchController, rewrite: RewriteBuffer): Promise<void> {
    const ended = await rewrite
      .end(this.res)
      .catch((err: unknown) =>
        err instanceof GatewayError ? err : new GatewayError('INTERNAL', `rewriting the answer failed: ${String(err)}`),
      );
    if (this.finished) return; // the client left while the rewrite looked things up
    if (ended instanceof GatewayError) return this.onResponseError(controller, ended);
    this.exchange.record.findings.push(...ended);
    this.finish();
  }

  /** An SSE stream whose agent stopped inside an event: the error event where it can stand whole. */
  private endMidEvent(failure: GatewayError): void {
    const { exchange } = this;
    exchange.fail('upstream-error', failure);
    // After a complete line, a blank line dispatches the last event whole; mid-line it would
    // dispatch a broken one, so the connection is cut instead.
    if (this.sse!.atLineEnd) this.res.end(`\n${sseErrorEvent(failure, this.request.errorContext)}`);
    else this.res.destroy(failure);
    this.finish();
  }

  onResponseError(_controller: Dispatcher.DispatchController, err: Error): void {
    if (this.graceTimer !== undefined) return this.endGrace('cut');
    if (this.finished || err instanceof ClientGone) return this.finish();
    const { exchange } = this;
    // A GatewayError here is the gateway's own: the client's body failing a limit
    // (request-body.ts), or a cut that undici took for an end (onResponseEnd).
    const failure = err instanceof GatewayError ? err : upstreamFailure(err, exchange.upstream.name);
    exchange.fail(AGENT_FAULTS.has(failure.reason) ? 'upstream-error' : 'gateway-error', failure);
    if (!this.res.headersSent) {
      sendGatewayError(this.res, failure, this.request.errorContext);
    } else if (this.sse?.atEventBoundary && !this.lengthFramed) {
      // The stream already carries events: end it with an error event in the caller's
      // protocol (wire-reference §1.1 / §1.2 de-facto mid-stream error shapes). Not when the
      // client was promised a Content-Length: more bytes would break that framing.
      this.res.end(sseErrorEvent(failure, this.request.errorContext));
    } else {
      // Mid-body with no clean place to add anything: cut the connection so the client
      // sees a truncated response rather than a falsely complete one.
      this.res.destroy(failure);
    }
    this.finish();
  }

  /** Exactly once, whichever way the exchange ends (principle 8). */
  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    clearTimeout(this.queued);
    this.sse?.stop();
    if (this.resumable && this.graceTimer === undefined) this.resumable.end(this.resumeEnd);
    this.res.off('close', this.onClientClose);
    this.exchange.finish();
    this.resolveDone();
  }

  /** Made the first time the client pushes back (most streams never do). */
  private resumeUpstream: (() => void) | undefined;

  /** Every connection to the agent stayed busy for `timeouts.queue`: 503, try again later. */
  onQueueTimeout(): void {
    if (this.finished || this.controller) return;
    const { exchange } = this;
    const agent = exchange.upstream.name;
    const message = `agent "${agent}" has no free connection; retry later`;
    const failure = new GatewayError('AGENT_BUSY', message, { agent }, { headers: { 'retry-after': '1' } });
    exchange.fail('gateway-error', failure);
    sendGatewayError(this.res, failure, this.request.errorContext);
    this.finish();
  }

  private readonly onClientClose = (): void => {
    if (this.res.writableFinished) return;
    this.exchange.fail('client-gone', new ClientGone());
    const graceMs = this.request.resume?.graceMs ?? 0;
    if (this.resumable?.named && graceMs > 0 && this.controller) this.readOnAfterClient(this.controller, graceMs);
    else this.controller?.abort(new ClientGone());
    this.finish();
  };

  /** Graceful shutdown, after its grace period: ends the exchange now. */
  private readonly terminate = (): void => {
    if (this.finished) return;
    const { exchange } = this;
    const failure = new GatewayError('SHUTTING_DOWN', 'the gateway is shutting down; retry on another instance');
    exchange.fail('gateway-error', failure);
    this.controller?.abort(new ClientGone());
    // Not answered yet: a 503 in the caller's protocol. A stream cut between two events ends
    // cleanly; anywhere else the cut must be visible.
    if (!this.res.headersSent) sendGatewayError(this.res, failure, this.request.errorContext);
    else if (this.sse?.atEventBoundary) this.res.end();
    else this.res.destroy();
    this.finish();
  };
}
