/**
 * Response decoding: unary JSON (tag, ids, state, error) or an SSE stream (event counts, order,
 * closure), or gRPC messages and trailers (src/a2a/grpc/response.ts), chosen by Content-Type, because agents answer streaming requests with plain JSON
 * errors (capture `v1--edge-rpc-subscribe-unknown-task.http`) and non-streaming ones never with
 * SSE. Pure and incremental; never throws; holds at most about `maxBytes` whatever the body size.
 */
import { createJsonBodyReader, PARSE_BUFFER_BYTES, type JsonBodyReader } from '../codec/json-body.js';
import { createSseDecoder, type SseDecoder } from '../codec/sse.js';
import type { RequestContext } from './checks.js';
import { FindingSink } from './findings.js';
import { encodingOf } from './content-encoding.js';
import { createGrpcResponseDecoder, grpcMessageCap } from './grpc/response.js';
import { createStreamMachine, type StreamMachine, type StreamProgress } from './stream.js';
import { decodeUnary, UNARY_PLAN } from './unary.js';

export type { ResponseTag } from './unary.js';
export type { StreamFacts, StreamClosure, StreamEventKind, StreamProgress } from './stream.js';
export type { ErrorFacts } from './payload.js';
export type {
  ResponseBodyKind,
  ResponseDecoder,
  ResponseDecoderOptions,
  ResponseEndOptions,
  ResponseFacts,
  ResponseHead,
} from './response-types.js';
import type {
  ResponseBodyKind,
  ResponseDecoder,
  ResponseDecoderOptions,
  ResponseFacts,
  ResponseHead,
} from './response-types.js';

/**
 * The most body bytes a decoder for `head` holds at once, with `opts`: what the inspection
 * budget reserves for it. An SSE stream holds the event in progress (up to the event cap, plus a
 * few KiB of line slack, src/codec/sse.ts); a JSON body its parse buffer (past it the scanner
 * holds no body bytes, only captured strings of a few KiB, src/codec/json-scan.ts); other and
 * compressed bodies nothing.
 */
export function responseHoldBytes(
  head: ResponseHead,
  opts: Pick<ResponseDecoderOptions, 'maxBytes' | 'parseBufferBytes' | 'maxEventBytes'>,
): number {
  const kind = bodyKindOf(head.contentType);
  if (kind === 'other' || encodingOf(head.contentEncoding) !== undefined) return 0;
  if (kind === 'sse') return Math.min(opts.maxBytes, opts.maxEventBytes ?? opts.maxBytes);
  // One message at a time, up to the cap (src/codec/grpc-frames.ts).
  if (kind === 'grpc') return grpcMessageCap(opts);
  return Math.min(opts.maxBytes, opts.parseBufferBytes ?? PARSE_BUFFER_BYTES);
}

export function createResponseDecoder(
  req: RequestContext,
  head: ResponseHead,
  opts: ResponseDecoderOptions,
): ResponseDecoder {
  const kind = bodyKindOf(head.contentType);
  const encoding = encodingOf(head.contentEncoding);
  if (encoding !== undefined && kind !== 'other') return new OpaqueDecoder(head, `response body is ${encoding}`);
  if (kind === 'sse') return new SseResponseDecoder(req, head, opts);
  if (kind === 'grpc') return createGrpcResponseDecoder(req, head, opts);
  if (kind === 'json') return new JsonResponseDecoder(req, head, opts);
  return new OpaqueDecoder(head, undefined);
}

/** Content-Type → body kind; agents send a handful of distinct values, so remember them. */
const kindByContentType = new Map<string, Exclude<ResponseBodyKind, 'empty'>>();

function bodyKindOf(contentType: string | undefined): Exclude<ResponseBodyKind, 'empty'> {
  const raw = contentType ?? '';
  let kind = kindByContentType.get(raw);
  if (kind === undefined) {
    kind = kindOfMediaType((raw.split(';')[0] ?? '').trim().toLowerCase());
    if (kindByContentType.size < 256) kindByContentType.set(raw, kind);
  }
  return kind;
}

function kindOfMediaType(type: string): Exclude<ResponseBodyKind, 'empty'> {
  if (type === 'text/event-stream') return 'sse';
  // application/grpc and application/grpc+proto ("gRPC over HTTP/2" Content-Type).
  if (type.startsWith('application/grpc')) return 'grpc';
  // application/json, application/a2a+json (§11.1), application/problem+json; none given: try.
  if (type === '' || type === 'application/json' || type.endsWith('+json')) return 'json';
  return 'other';
}

// Classes rather than object literals with a getter (those are built on a slow path; one
// decoder per exchange showed in the profile).

class JsonResponseDecoder implements ResponseDecoder {
  private readonly body: JsonBodyReader;
  private readonly findings = new FindingSink();

  constructor(
    private readonly req: RequestContext,
    private readonly head: ResponseHead,
    opts: ResponseDecoderOptions,
  ) {
    this.body = createJsonBodyReader(UNARY_PLAN, { maxBytes: opts.maxBytes, parseBufferBytes: opts.parseBufferBytes });
  }

  push(chunk: Uint8Array): void {
    this.body.push(chunk);
  }

  end(endOpts: { aborted?: boolean } = {}): ResponseFacts {
    const { head, findings } = this;
    const aborted = endOpts.aborted === true;
    const read = this.body.end({ truncated: aborted });
    if (read.status === 'malformed') findings.add('a2a.invalid-json', 'response body');
    if (read.status === 'partial' && !aborted) findings.add('gateway.inspect-partial', 'response body');
    const unary = decodeUnary(this.req, head.status, read.value, read.fields.complete, read.status, findings);
    const p = unary.payload;
    return {
      httpStatus: head.status,
      bodyKind: read.status === 'empty' ? 'empty' : 'json',
      tag: unary.tag,
      shape: p.shape,
      taskId: p.taskId,
      contextId: p.contextId,
      messageId: p.messageId,
      state: p.state,
      stateTimestamp: p.stateTimestamp,
      artifactCount: p.artifactCount,
      historyCount: p.historyCount,
      error: unary.error,
      bodyBytes: read.bytes,
      partial: read.status === 'partial',
      malformed: read.status === 'malformed',
      aborted,
      findings: findings.list(),
    };
  }

  get heldBytes(): number {
    return this.body.heldBytes;
  }

  readonly streamTaskId = undefined;
  readonly streamContextId = undefined;
  readonly streamProgress = undefined;
}

class SseResponseDecoder implements ResponseDecoder {
  private readonly findings = new FindingSink();
  private readonly machine: StreamMachine;
  private readonly sse: SseDecoder;

  constructor(
    req: RequestContext,
    private readonly head: ResponseHead,
    opts: ResponseDecoderOptions,
  ) {
    const machine = createStreamMachine(req, this.findings, { clock: opts.clock, streamEvents: opts.streamEvents });
    this.machine = machine;
    const maxEventBytes = Math.min(opts.maxBytes, opts.maxEventBytes ?? opts.maxBytes);
    this.sse = createSseDecoder({ maxEventBytes, onEvent: (e) => machine.onEvent(e) });
  }

  push(chunk: Uint8Array): void {
    this.sse.push(chunk);
  }

  end(endOpts: { aborted?: boolean } = {}): ResponseFacts {
    const aborted = endOpts.aborted === true;
    const stats = this.sse.end();
    const stream = this.machine.end(stats, aborted);
    return {
      httpStatus: this.head.status,
      bodyKind: stats.bytes === 0 ? 'empty' : 'sse',
      tag: stream.tag,
      taskId: stream.taskId,
      contextId: stream.contextId,
      state: stream.finalState,
      error: stream.error,
      stream,
      bodyBytes: stats.bytes,
      partial: stats.oversizeEvents > 0,
      malformed: this.findings.has('a2a.invalid-json'),
      aborted,
      findings: this.findings.list(),
    };
  }

  get heldBytes(): number {
    return this.sse.heldBytes;
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
}

/** Bodies that are neither JSON nor SSE (HTML error pages, files): counted, not read. */
class OpaqueDecoder implements ResponseDecoder {
  private bytes = 0;
  readonly heldBytes = 0;
  readonly streamTaskId = undefined;
  readonly streamContextId = undefined;
  readonly streamProgress = undefined;

  constructor(
    private readonly head: ResponseHead,
    private readonly unreadA2aBody: string | undefined,
  ) {}

  push(chunk: Uint8Array): void {
    this.bytes += chunk.length;
  }

  end(endOpts: { aborted?: boolean } = {}): ResponseFacts {
    const { head, bytes, unreadA2aBody } = this;
    const isError = head.status >= 400;
    const partial = unreadA2aBody !== undefined && bytes > 0;
    return {
      httpStatus: head.status,
      bodyKind: bytes === 0 ? 'empty' : 'other',
      tag: isError ? 'error' : 'other',
      error: isError ? { httpStatus: head.status } : undefined,
      bodyBytes: bytes,
      partial,
      malformed: false,
      aborted: endOpts.aborted === true,
      findings: partial ? [{ rule: 'gateway.inspect-partial', count: 1, detail: unreadA2aBody }] : [],
    };
  }
}
