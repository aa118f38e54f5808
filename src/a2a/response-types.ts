/**
 * The response decoders' contract (src/a2a/response.ts for JSON and SSE bodies,
 * src/a2a/grpc/response.ts for gRPC): what they are told and the facts they yield.
 */
import type { Finding } from './findings.js';
import type { ProtocolVersion } from './operations.js';
import type { ErrorFacts } from './payload.js';
import type { StreamEventsMode, StreamFacts, StreamProgress } from './stream.js';
import type { TaskState } from './task-state.js';
import type { ResponseTag } from './unary.js';
export interface ResponseHead {
  readonly status: number;
  readonly contentType?: string;
  /** `Content-Encoding`; a compressed body is not read (facts `partial`). */
  readonly contentEncoding?: string;
}

export interface ResponseDecoderOptions {
  /** Inspection cap: JSON bytes read, and the largest SSE event decoded; bounds memory too. */
  readonly maxBytes: number;
  /** Monotonic milliseconds (e.g. `performance.now`); enables `stream.firstEventMs`. */
  readonly clock?: () => number;
  /** Tuning: JSON bodies up to this size are parsed whole, bigger ones scanned (default 16 KiB). */
  readonly parseBufferBytes?: number;
  /**
   * Largest SSE event decoded, and so held (default `maxBytes`); longer ones are skipped and the
   * facts say `partial`. The global inspection budget (src/inspect/budget.ts) lowers it.
   */
  readonly maxEventBytes?: number;
  /** How later stream events are read: from their heads in place (default) or whole (src/a2a/event-head.ts). */
  readonly streamEvents?: StreamEventsMode;
}

export type ResponseBodyKind = 'json' | 'sse' | 'grpc' | 'other' | 'empty';

export interface ResponseFacts {
  readonly httpStatus: number;
  /** How the body was decoded: by Content-Type. `other` bodies (HTML error pages…) are not read. */
  readonly bodyKind: ResponseBodyKind;
  readonly tag: ResponseTag;
  /** Wire shape the payload showed, when it showed one (for version checks). */
  readonly shape?: ProtocolVersion;
  readonly taskId?: string;
  readonly contextId?: string;
  readonly messageId?: string;
  /** Task state (unary) or last state reported (stream), normalised to 1.0 names. */
  readonly state?: TaskState;
  /** A unary Task's `status.timestamp` as the agent wrote it (§4.1.2); streams do not read it. */
  readonly stateTimestamp?: string;
  readonly artifactCount?: number;
  readonly historyCount?: number;
  /** The error of an error response, or the first error event of a stream. */
  readonly error?: ErrorFacts;
  readonly stream?: StreamFacts;
  readonly bodyBytes: number;
  /** The body went past the cap, or an SSE event was skipped; facts may be incomplete. */
  readonly partial: boolean;
  readonly malformed: boolean;
  readonly aborted: boolean;
  readonly findings: readonly Finding[];
}

export interface ResponseEndOptions {
  readonly aborted?: boolean;
  readonly trailers?: Readonly<Record<string, string | string[] | undefined>>;
}

export interface ResponseDecoder {
  push(chunk: Uint8Array): void;
  /** The task an SSE stream is about as soon as an event named it; JSON bodies tell only at `end`. */
  readonly streamTaskId: string | undefined;
  /** Likewise the stream's context. */
  readonly streamContextId: string | undefined;
  /** An SSE stream's state changes and artifact updates so far; undefined for other bodies. */
  readonly streamProgress: StreamProgress | undefined;
  /**
   * `trailers`: the HTTP trailers (gRPC puts its status there; a trailers-only gRPC answer passes
   * its headers). The JSON and SSE decoders ignore them.
   */
  end(opts?: ResponseEndOptions): ResponseFacts;
  /** Body bytes held right now (for memory-bound tests). */
  readonly heldBytes: number;
}
