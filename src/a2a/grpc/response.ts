/**
 * Response decoding for the gRPC binding (§10, wire-reference §1.3): the length-prefixed
 * messages of the body (src/codec/grpc-frames.ts) read as the response type of the request's
 * rpc (docs/proto/a2a-v1.0.0.proto, docs/proto/a2a-v0.3.0.proto service A2AService), and the
 * status from the trailers (src/a2a/grpc/status.ts). A streaming rpc's messages are
 * StreamResponses fed to the same stream machine as SSE events (src/a2a/stream.ts). Same
 * `ResponseFacts` as the JSON bindings. Pure, incremental, never throws; holds at most one
 * message of the event cap (principles 3, 5, 6).
 */
import { GrpcFrameReader } from '../../codec/grpc-frames.js';
import type { SseStats } from '../../codec/sse.js';
import { checkHistory, checkShape, checkTaskId, type RequestContext } from '../checks.js';
import { FindingSink } from '../findings.js';
import { isStreamingOperation } from '../operations.js';
import type { ErrorFacts, Payload } from '../payload.js';
import type {
  ResponseDecoder,
  ResponseDecoderOptions,
  ResponseEndOptions,
  ResponseFacts,
  ResponseHead,
} from '../response-types.js';
import { createStreamMachine, type StreamMachine, type StreamProgress } from '../stream.js';
import { isInterrupted, isTerminal } from '../task-state.js';
import type { ResponseTag } from '../unary.js';
import { eachField, tryDecode } from './proto-read.js';
import { readOneofPayload, readTask } from './response-message.js';
import { decodeGrpcStatus, GRPC_CODE_NAMES, type Trailers } from './status.js';

export function createGrpcResponseDecoder(
  req: RequestContext,
  head: ResponseHead,
  opts: ResponseDecoderOptions,
): ResponseDecoder {
  const maxMessageBytes = grpcMessageCap(opts);
  return isStreamingOperation(req.operation)
    ? new GrpcStreamDecoder(req, head, maxMessageBytes, opts.clock)
    : new GrpcUnaryDecoder(req, head, maxMessageBytes);
}

/** The largest message decoded, and so held (the SSE event cap's counterpart). */
export function grpcMessageCap(opts: Pick<ResponseDecoderOptions, 'maxBytes' | 'maxEventBytes'>): number {
  return Math.min(opts.maxBytes, opts.maxEventBytes ?? opts.maxBytes);
}

/** The error a non-OK `grpc-status` trailer carries (§10.6); `undefined` for OK or no status. */
export function grpcErrorOf(trailers: Trailers | undefined, httpStatus: number): ErrorFacts | undefined {
  const status = decodeGrpcStatus(trailers);
  if (status === undefined || status.code === 0) return undefined;
  return {
    reason: status.reason,
    status: GRPC_CODE_NAMES[status.code],
    httpStatus,
    message: status.message,
    grpcStatus: status.code,
  };
}

class GrpcUnaryDecoder implements ResponseDecoder {
  private readonly frames: GrpcFrameReader;
  private payload: Payload | undefined = undefined;
  private invalid = false;
  private compressed = false;
  readonly streamTaskId = undefined;
  readonly streamContextId = undefined;
  readonly streamProgress = undefined;

  constructor(
    private readonly req: RequestContext,
    private readonly head: ResponseHead,
    maxMessageBytes: number,
  ) {
    this.frames = new GrpcFrameReader(maxMessageBytes);
  }

  get heldBytes(): number {
    return this.frames.heldBytes;
  }

  push(chunk: Uint8Array): void {
    this.frames.push(chunk, (message, compressed) => this.onMessage(message, compressed));
  }

  private onMessage(message: Uint8Array, compressed: boolean): void {
    if (this.frames.messages > 1) return; // a unary rpc answers one message; `end` says malformed
    if (compressed) {
      this.compressed = true;
      return;
    }
    const payload = tryDecode(() => unaryPayload(this.req, message));
    if (payload === undefined) this.invalid = true;
    this.payload = payload;
  }

  end(opts: ResponseEndOptions = {}): ResponseFacts {
    const { frames, head } = this;
    const aborted = opts.aborted === true;
    const findings = new FindingSink();
    const error = grpcErrorOf(opts.trailers, head.status);
    const malformed = this.invalid || frames.messages > 1 || (frames.midMessage && !aborted);
    if (malformed) findings.add('a2a.invalid-protobuf', malformedDetail(this.invalid, frames.messages));
    const partial = frames.skipped > 0 || this.compressed;
    if (partial)
      findings.add('gateway.inspect-partial', this.compressed ? 'response message is compressed' : 'response message');
    const p = error === undefined && !malformed ? this.payload : undefined;
    if (p !== undefined) checkUnary(this.req, p, findings);
    else if (error === undefined && !malformed && !partial && !aborted && this.req.operation === 'SendMessage') {
      findings.add('a2a.send-result-shape', 'neither task nor message');
    }
    const tag: ResponseTag =
      error !== undefined ? 'error' : p?.kind === 'task' ? 'task' : p?.kind === 'message' ? 'message' : 'other';
    return {
      httpStatus: head.status,
      bodyKind: frames.bytes === 0 ? 'empty' : 'grpc',
      tag,
      shape: p?.shape,
      taskId: p?.taskId,
      contextId: p?.contextId,
      messageId: p?.messageId,
      state: p?.state,
      artifactCount: p?.artifactCount,
      historyCount: p?.historyCount,
      error,
      bodyBytes: frames.bytes,
      partial,
      malformed,
      aborted,
      findings: findings.list(),
    };
  }
}

function malformedDetail(invalid: boolean, messages: number): string {
  if (invalid) return 'response message is not valid protobuf';
  return messages > 1 ? `${messages} messages in a unary response` : 'response body ends inside a message';
}

/**
 * SendMessage → SendMessageResponse, GetTask/CancelTask → Task; the other unary rpcs answer
 * neither (ListTasksResponse, push configs, AgentCard, Empty): checked to be protobuf, tag
 * `other`, as the JSON path tags them (src/a2a/unary.ts).
 */
function unaryPayload(req: RequestContext, message: Uint8Array): Payload {
  if (req.operation === 'SendMessage') return readOneofPayload(message, false);
  if (req.operation === 'GetTask' || req.operation === 'CancelTask') return readTask(message);
  eachField(message, () => {});
  return { kind: undefined, ambiguous: false };
}

/** The checks of src/a2a/unary.ts `decodeUnary` that apply to a decoded proto payload. */
function checkUnary(req: RequestContext, payload: Payload, findings: FindingSink): void {
  if (req.operation === 'SendMessage' && payload.ambiguous)
    findings.add('a2a.send-result-shape', 'both task and message');
  if (req.operation === 'SendMessage' && payload.kind === undefined) {
    findings.add('a2a.send-result-shape', 'neither task nor message');
  }
  checkShape(req, payload, findings);
  checkTaskId(req.taskId, payload, findings);
  checkHistory(req, payload, findings);
  const { state } = payload;
  if (req.operation === 'SendMessage' && req.blocking === true && payload.kind === 'task' && state !== undefined) {
    // §3.2.2: a blocking send returns only once the task is terminal or interrupted.
    if (!isTerminal(state) && !isInterrupted(state, req.version)) findings.add('a2a.blocking-send-not-final', state);
  }
}

class GrpcStreamDecoder implements ResponseDecoder {
  private readonly findings = new FindingSink();
  private readonly machine: StreamMachine;
  private readonly frames: GrpcFrameReader;
  private compressed = 0;

  constructor(
    req: RequestContext,
    private readonly head: ResponseHead,
    maxMessageBytes: number,
    clock: (() => number) | undefined,
  ) {
    this.machine = createStreamMachine(req, this.findings, { clock });
    this.frames = new GrpcFrameReader(maxMessageBytes);
  }

  get heldBytes(): number {
    return this.frames.heldBytes;
  }

  get streamTaskId(): string | undefined {
    return this.machine.currentTaskId;
  }

  get streamContextId(): string | undefined {
    return this.machine.currentContextId;
  }

  get streamProgress(): StreamProgress {
    return this.machine;
  }

  push(chunk: Uint8Array): void {
    this.frames.push(chunk, (message, compressed) => this.onMessage(message, compressed));
  }

  private onMessage(message: Uint8Array, compressed: boolean): void {
    if (compressed) {
      this.compressed++;
      this.machine.onDecoded('other');
      return;
    }
    const payload = tryDecode(() => readOneofPayload(message, true));
    if (payload === undefined) this.findings.add('a2a.invalid-protobuf', 'stream message is not valid protobuf');
    this.machine.onDecoded(payload ?? 'other');
  }

  end(opts: ResponseEndOptions = {}): ResponseFacts {
    const { frames, findings, head } = this;
    const aborted = opts.aborted === true;
    const error = grpcErrorOf(opts.trailers, head.status);
    if (error !== undefined) this.machine.onDecoded('error', error);
    if (this.compressed > 0) findings.add('gateway.inspect-partial', `${this.compressed} compressed stream message(s)`);
    const stream = this.machine.end(streamStats(frames), aborted);
    return {
      httpStatus: head.status,
      bodyKind: frames.bytes === 0 ? 'empty' : 'grpc',
      tag: stream.tag,
      taskId: stream.taskId,
      contextId: stream.contextId,
      state: stream.finalState,
      error: stream.error,
      stream,
      bodyBytes: frames.bytes,
      partial: frames.skipped > 0 || this.compressed > 0,
      malformed: findings.has('a2a.invalid-protobuf'),
      aborted,
      findings: findings.list(),
    };
  }
}

/** The frame reader's counts in the shape the stream machine takes from the SSE decoder. */
function streamStats(frames: GrpcFrameReader): SseStats {
  return {
    events: frames.messages,
    comments: 0,
    retries: 0,
    invalidLines: 0,
    oversizeEvents: frames.skipped,
    unterminated: frames.midMessage,
    bytes: frames.bytes,
  };
}
