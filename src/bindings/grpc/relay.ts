/**
 * Relays one gRPC call to the agent and its answer back: the request message
 * on, the agent's headers, every DATA chunk the moment it arrives (backpressure both ways) and
 * its trailers, unchanged; a trailers-only answer stays trailers-only. The client's deadline
 * (`grpc-timeout`) goes on with the time already spent taken off, and the gateway answers
 * DEADLINE_EXCEEDED itself when it passes, so a call never outlives what the client asked for.
 * A client that cancels (RST_STREAM) cancels the agent's stream; an agent that fails is
 * UNAVAILABLE (nothing sent yet) or ends the relayed answer with that status in its trailers.
 *
 * With `rewrite` (an extended card, ListTasks under task ownership: held-answer.ts), an answer
 * with headers is held whole instead; at its trailers, grpc-status 0 sends it rewritten as one
 * message with the agent's headers and trailers, any other status as it came. A trailers-only
 * answer (an error) goes through untouched either way. Observers see what the client gets.
 *
 * With `resume` (an agent with stream resume, resume-relay.ts), the headers wait for the first
 * message, which names the stream, and a client that cancels leaves the agent's stream read on
 * into the window for the grace period. With `continuing`, the agent's answer goes on in a
 * resume's replay (resume.ts): headers not sent again (docs/fleet.md "Stream resume").
 */
import { constants, type ClientHttp2Stream, type IncomingHttpHeaders } from 'node:http2';
import type { Exchange, ResponseHeaders } from '../../exchange/exchange.js';
import { GatewayError, UPSTREAM_REASONS, upstreamFailure } from '../../errors/gateway-error.js';
import { grpcFailureOf, sendGrpcFailure } from '../../errors/grpc-answer.js';
import type { GrpcCall } from './call.js';
import { HeldAnswer, type HeldResult, type HeldRewrite } from './held-answer.js';
import { streamFailureCause } from './channel.js';
import type { ResumableRelay } from './resume-relay.js';

export interface RelayRequest {
  /** The agent's stream, opened with the request headers. */
  readonly upstream: ClientHttp2Stream;
  /** The request body, read whole (request-body.ts: every A2A rpc takes one request message). */
  readonly body: Buffer;
  /** Epoch ms by which the client wants its answer (its `grpc-timeout`), if it gave one. */
  readonly deadline: number | undefined;
  /** Hold the answer whole and rewrite it (decided by the pipeline from the request and its admission). */
  readonly rewrite?: HeldRewrite;
  /** Stream resume (resume-relay.ts): the stream named in its headers and kept in its window. */
  readonly resume?: ResumableRelay;
  /**
   * The client's answer has started already (a resume's replay, resume.ts): the agent's messages
   * go on in it, its headers are not sent again, and a trailers-only answer ends it with its status.
   */
  readonly continuing?: boolean;
}

/** Resolves when the exchange has finished: trailers relayed, the client gone, or the agent failed. */
export function relayGrpc(call: GrpcCall, request: RelayRequest): Promise<void> {
  return new Promise<void>((done) => new GrpcRelay(call, request, done).start());
}

const AGENT_FAULTS: ReadonlySet<string> = new Set(UPSTREAM_REASONS);

const RESPONSE_DROP = new Set([':status', 'connection', 'keep-alive', 'transfer-encoding', 'upgrade']);

/** The agent's header block as the client gets it (pseudo-headers are the listener's to write). */
function relayedHeaders(headers: IncomingHttpHeaders): ResponseHeaders {
  const out: ResponseHeaders = {};
  for (const [name, value] of Object.entries(headers)) if (!RESPONSE_DROP.has(name)) out[name] = value;
  return out;
}

/** The status fields of a trailers-only block, as trailers of an answer already started. */
function statusOf(headers: IncomingHttpHeaders): ResponseHeaders {
  const out: ResponseHeaders = {};
  for (const [name, value] of Object.entries(headers)) if (name.startsWith('grpc-')) out[name] = value;
  return out;
}

class GrpcRelay {
  private readonly exchange: Exchange;
  private timer: NodeJS.Timeout | undefined;
  private ended = false;
  /** The answer held for its rewrite: the agent's status and headers, and its body so far. */
  private held: { status: number; headers: ResponseHeaders; answer: HeldAnswer } | undefined;
  /** Set at the trailers of a held answer: it is being rewritten and sent, and finishes the exchange. */
  private releasing = false;
  /** The client left a named resumable stream: the agent's is read on into the window until this fires. */
  private graceTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly call: GrpcCall,
    private readonly request: RelayRequest,
    private readonly done: () => void,
  ) {
    this.exchange = call.exchange;
  }

  start(): void {
    const { upstream, body, deadline } = this.request;
    const { res } = this.call;
    upstream.on('response', (headers, flags) => this.onResponse(headers, flags));
    upstream.on('data', (chunk: Buffer) => this.onData(chunk));
    upstream.on('trailers', (trailers) => this.onTrailers(trailers));
    upstream.on('end', () => this.onEnd());
    upstream.on('error', (err) => this.onUpstreamFailure(err));
    upstream.on('close', () => this.onUpstreamClose());
    res.on('close', () => this.onClientClose());
    res.on('drain', () => upstream.resume());
    if (deadline !== undefined) {
      this.timer = setTimeout(() => this.onDeadline(), Math.max(0, deadline - Date.now()));
    }
    upstream.end(body);
  }

  private onResponse(headers: IncomingHttpHeaders, flags: number): void {
    const { res } = this.call;
    const status = Number(headers[':status'] ?? 200);
    this.exchange.replicaStatus = status;
    const outgoing = relayedHeaders(headers);
    const trailersOnly = (flags & constants.NGHTTP2_FLAG_END_STREAM) !== 0;
    // A resumable stream's head is seen when it goes out (resume-relay.ts), with its name.
    if (!this.request.resume || trailersOnly) this.exchange.emit('onResponseStart', status, outgoing);
    if (trailersOnly && this.request.continuing) return this.onTrailers(headers);
    if (this.request.continuing) return;
    if (trailersOnly) {
      // Trailers-only (an error, or an empty answer): the status is in this one block.
      this.exchange.responseTrailers = outgoing;
      if (!res.stream.destroyed) res.stream.respond({ ':status': status, ...outgoing }, { endStream: true });
      this.finish();
      return;
    }
    const { rewrite, resume } = this.request;
    if (resume) return resume.holdHead(status, outgoing); // named at its first message
    if (!rewrite) return void res.writeHead(status, outgoing);
    // The rewritten message has a length of its own; HTTP/2 frames delimit it (RFC 9113 §8.1.1).
    const { 'content-length': _length, ...kept } = outgoing;
    this.held = { status, headers: kept, answer: new HeldAnswer(rewrite, this.exchange.upstream.name) };
  }

  private onData(chunk: Buffer): void {
    if (this.graceTimer !== undefined) return this.request.resume!.stream.push(chunk); // into the window only
    if (this.ended) return;
    if (this.request.resume) return this.request.resume.data(chunk, this.writeChunk);
    if (this.held) {
      const refusal = this.held.answer.push(chunk);
      if (refusal) this.refuse(refusal);
      return;
    }
    this.write(chunk);
  }

  private readonly writeChunk = (chunk: Buffer): void => this.write(chunk);

  private write(chunk: Buffer): void {
    const { res } = this.call;
    this.exchange.record.bytesOut += chunk.length;
    this.exchange.emit('onResponseChunk', chunk);
    if (!res.write(chunk)) this.request.upstream.pause();
  }

  private onTrailers(trailers: IncomingHttpHeaders): void {
    const outgoing = this.request.continuing ? statusOf(trailers) : relayedHeaders(trailers);
    if (this.request.resume) this.request.resume.trailers(outgoing, this.writeChunk);
    if (this.graceTimer !== undefined) return clearTimeout(this.graceTimer);
    if (this.held) return void this.release(outgoing);
    this.exchange.responseTrailers = outgoing;
    this.call.res.addTrailers(outgoing);
  }

  /** The held answer is whole: rewritten when its status is 0, else as it came; then the end. */
  private async release(trailers: ResponseHeaders): Promise<void> {
    const { status, headers, answer } = this.held!;
    this.releasing = true;
    let result: HeldResult;
    try {
      result = String(trailers['grpc-status']) === '0' ? await answer.rewritten() : answer.asItCame();
    } catch (err) {
      return this.refuse(err);
    }
    if (this.ended) return;
    if ('refusal' in result) return this.refuse(result.refusal);
    this.exchange.record.findings.push(...result.findings);
    this.exchange.emit('onResponseStart', status, headers);
    this.call.res.writeHead(status, headers);
    if (result.body.length > 0) this.write(result.body);
    this.exchange.responseTrailers = trailers;
    this.call.res.addTrailers(trailers);
    this.held = undefined;
    this.releasing = false;
    this.onEnd();
  }

  /** The held answer cannot go on: the gateway answers the error instead (the agent's fault, or
   * the gateway's: the task store down, a rewrite that threw). */
  private refuse(err: unknown): void {
    if (this.ended) return;
    const failure = err instanceof Error ? err : new Error(String(err));
    const agents = err instanceof GatewayError && AGENT_FAULTS.has(err.reason);
    this.exchange.fail(agents ? 'upstream-error' : 'gateway-error', failure);
    this.answer(err);
  }

  private onEnd(): void {
    if (this.ended || this.releasing) return;
    this.request.resume?.release(this.writeChunk); // headers still held: an answer with no message
    const { res } = this.call;
    if (!res.writableEnded && !res.stream.destroyed) res.end();
    this.finish();
  }

  private onUpstreamClose(): void {
    const { upstream } = this.request;
    if (this.graceTimer !== undefined) return this.endGrace();
    if (this.ended || this.releasing) return;
    const code = upstream.rstCode ?? constants.NGHTTP2_NO_ERROR;
    if (code === constants.NGHTTP2_NO_ERROR && this.exchange.responseTrailers) return this.onEnd();
    this.onUpstreamFailure(
      new GatewayError('UPSTREAM_RESET', `the agent's stream closed (HTTP/2 code ${code}) before its trailers`),
    );
  }

  private onUpstreamFailure(err: unknown): void {
    if (this.graceTimer !== undefined) return this.endGrace();
    if (this.ended) return;
    const failure =
      err instanceof GatewayError ? err : upstreamFailure(streamFailureCause(err), this.exchange.upstream.name);
    this.exchange.fail('upstream-error', failure);
    this.answer(failure);
  }

  private onDeadline(): void {
    if (this.ended) return;
    const failure = new GatewayError('UPSTREAM_TIMEOUT', 'the call passed the deadline the client gave (grpc-timeout)');
    this.exchange.fail('upstream-error', failure);
    this.request.upstream.close(constants.NGHTTP2_CANCEL);
    this.answer(failure);
  }

  private onClientClose(): void {
    if (this.ended) return;
    // The client cancelled (RST_STREAM) or its connection went: so does the agent's stream —
    // unless it is a named resumable one, read on into its window for the grace period.
    this.exchange.fail('client-gone', new Error('client went away'));
    const graceMs = this.request.resume?.graceFor() ?? 0;
    if (graceMs > 0) this.readOnAfterClient(graceMs);
    else this.request.upstream.close(constants.NGHTTP2_CANCEL);
    this.finish();
  }

  private readOnAfterClient(graceMs: number): void {
    const { upstream } = this.request;
    this.graceTimer = setTimeout(() => upstream.close(constants.NGHTTP2_CANCEL), graceMs);
    this.graceTimer.unref();
    upstream.resume(); // paused by the client's backpressure: nobody waits for these bytes now
  }

  /** The grace read is over: the agent's stream closed (after its trailers, or cancelled when grace ran out). */
  private endGrace(): void {
    clearTimeout(this.graceTimer);
    this.request.resume!.stream.end('cut'); // a no-op when its trailers ended it already
  }

  private answer(err: unknown): void {
    const trailers = sendGrpcFailure(this.call.res, grpcFailureOf(err));
    if (trailers) this.exchange.responseTrailers = trailers;
    if (!this.request.upstream.closed) this.request.upstream.close(constants.NGHTTP2_CANCEL);
    this.finish();
  }

  private finish(): void {
    if (this.ended) return;
    this.ended = true;
    clearTimeout(this.timer);
    if (this.graceTimer === undefined) this.request.resume?.stream.end('cut'); // a no-op once its trailers ended it
    this.exchange.finish();
    this.done();
  }
}
