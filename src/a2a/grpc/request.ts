/**
 * Request classification for the gRPC binding (§10, wire-reference §1.3, §6): operation and
 * version from the method path (`/lf.a2a.v1.A2AService/…` 1.0, `/a2a.v1.A2AService/…` 0.3), the
 * `a2a-version` metadata first (§10.2), and the ids from the one request message, read by field
 * number (src/a2a/grpc/request-message.ts). Same `RequestFacts` as the JSON bindings
 * (src/a2a/request.ts). Pure and incremental; never throws (principles 3, 5); holds at most one
 * message of `maxBytes` (principle 6).
 */
import { GrpcFrameReader } from '../../codec/grpc-frames.js';
import type { JsonBodyStatus } from '../../codec/json-body.js';
import { FindingSink } from '../findings.js';
import { isStreamingOperation, type Operation, type ProtocolVersion } from '../operations.js';
import type { RequestDecoder, RequestDecoderOptions, RequestFacts, RequestHead } from '../request-types.js';
import { classifyUrl, isNonPublic } from '../url-host.js';
import { decideVersion } from '../version.js';
import { grpcMethod, type GrpcMethod } from './methods.js';
import { tryDecode } from './proto-read.js';
import { readRequestMessage, type GrpcRequestFields } from './request-message.js';

export function createGrpcRequestDecoder(head: RequestHead, opts: RequestDecoderOptions): RequestDecoder {
  return new GrpcRequestDecoder(head, opts);
}

/** The body as read: the one message's fields, or why there are none. */
interface BodyRead {
  readonly status: JsonBodyStatus;
  readonly fields: GrpcRequestFields | undefined;
  readonly partialBecause?: string;
  readonly malformedBecause?: string;
}

class GrpcRequestDecoder implements RequestDecoder {
  private readonly frames: GrpcFrameReader;
  private readonly method: GrpcMethod | undefined;
  private first: GrpcRequestFields | undefined = undefined;
  private malformedBecause: string | undefined = undefined;
  private compressed = false;

  constructor(
    private readonly head: RequestHead,
    opts: RequestDecoderOptions,
  ) {
    this.frames = new GrpcFrameReader(opts.maxBytes);
    this.method = grpcMethod(head.path);
  }

  push(chunk: Uint8Array): void {
    this.frames.push(chunk, (message, compressed) => this.onMessage(message, compressed));
  }

  end(opts: { aborted?: boolean } = {}): RequestFacts {
    return classifyGrpc(this.head, this.method, this.bodyRead(opts.aborted === true), this.frames.bytes);
  }

  get heldBytes(): number {
    return this.frames.heldBytes;
  }

  private onMessage(message: Uint8Array, compressed: boolean): void {
    if (this.frames.messages + this.frames.skipped > 1) return; // counted; `bodyRead` says malformed
    if (compressed) {
      this.compressed = true;
      return;
    }
    const method = this.method;
    const fields = tryDecode(() =>
      readRequestMessage(message, method?.operation ?? 'unknown', method?.version ?? '1.0'),
    );
    if (fields === undefined) this.malformedBecause = 'request message is not valid protobuf';
    this.first = fields;
  }

  private bodyRead(aborted: boolean): BodyRead {
    const { frames } = this;
    const count = frames.messages + frames.skipped;
    if (frames.bytes === 0) return { status: 'empty', fields: undefined };
    // A unary or server-streaming rpc sends exactly one request message (docs/proto services).
    if (count > 1) return { status: 'malformed', fields: undefined, malformedBecause: `${count} request messages` };
    if (this.malformedBecause !== undefined) {
      return { status: 'malformed', fields: undefined, malformedBecause: this.malformedBecause };
    }
    if (frames.skipped > 0) return { status: 'partial', fields: undefined, partialBecause: 'request message' };
    if (this.compressed) return this.compressedRead();
    if (frames.midMessage || count === 0) {
      return aborted
        ? { status: 'partial', fields: undefined, partialBecause: 'request body cut' }
        : { status: 'malformed', fields: undefined, malformedBecause: 'request body ends inside a message' };
    }
    return { status: 'complete', fields: this.first };
  }

  /**
   * A compressed message is legitimate with a `grpc-encoding` header; not decoded, so partial.
   * Without one it is a protocol error ("gRPC over HTTP/2", Compressed-Flag).
   */
  private compressedRead(): BodyRead {
    const encoding = this.head.headers['grpc-encoding'];
    if (encoding === undefined || encoding === '' || encoding === 'identity') {
      return { status: 'malformed', fields: undefined, malformedBecause: 'compressed message without grpc-encoding' };
    }
    return { status: 'partial', fields: undefined, partialBecause: `request message is ${encoding.slice(0, 32)}` };
  }
}

function classifyGrpc(
  head: RequestHead,
  method: GrpcMethod | undefined,
  read: BodyRead,
  bodyBytes: number,
): RequestFacts {
  const findings = new FindingSink();
  if (read.malformedBecause !== undefined) findings.add('a2a.invalid-protobuf', read.malformedBecause);
  if (read.partialBecause !== undefined) findings.add('gateway.inspect-partial', read.partialBecause);
  if (method === undefined) findings.add('a2a.unknown-operation', `gRPC ${head.path.slice(0, 120)}`);
  const versionHeader = head.headers['a2a-version'];
  const { version, signal } = decideVersion(
    {
      header: versionHeader,
      query: undefined,
      method: undefined,
      restPath: undefined,
      payload: undefined,
      grpcPackage: method?.version,
    },
    findings,
  );
  const operation: Operation = method?.operation ?? 'unknown';
  const f = read.fields;
  const complete = read.status === 'complete';
  const facts = messageFacts(operation, method?.version ?? version, f, complete);
  if (facts.pushUrl !== undefined && isNonPublic(classifyUrl(facts.pushUrl).hostClass)) {
    findings.add('a2a.push-url-private', facts.pushUrl.slice(0, 200));
  }
  return {
    // The content-type already says gRPC (src/a2a/request.ts); only the operation is unknown.
    binding: 'grpc',
    version,
    // The message is written in its rpc's package, whatever `a2a-version` says (wire-reference §6.1).
    wireVersion: method?.version ?? version,
    versionSignal: signal,
    versionHeader,
    operation,
    streaming: isStreamingOperation(operation),
    jsonrpcMethod: undefined,
    jsonrpcId: undefined,
    jsonrpcIdPresent: undefined,
    tenant: f?.tenant || undefined,
    restPrefix: undefined,
    ...facts,
    body: read.status,
    document: undefined,
    bodyBytes,
    partial: read.status === 'partial',
    malformed: read.status === 'malformed',
    findings: findings.list(),
  };
}

type MessageFacts = Pick<
  RequestFacts,
  | 'taskId'
  | 'contextId'
  | 'messageId'
  | 'pushConfigId'
  | 'blocking'
  | 'historyLength'
  | 'pushUrl'
  | 'pushUrls'
  | 'taskIds'
  | 'contextIds'
  | 'pageTokens'
>;

/** proto3 strings are never absent, only empty: an empty id names nothing. */
function messageFacts(
  op: Operation,
  methodVersion: ProtocolVersion,
  f: GrpcRequestFields | undefined,
  complete: boolean,
): MessageFacts {
  const sends = op === 'SendMessage' || op === 'SendStreamingMessage';
  const taskId = nonEmpty(f?.taskId) ?? (sends ? nonEmpty(f?.messageTaskId) : undefined);
  const contextId = nonEmpty(f?.messageContextId) ?? nonEmpty(f?.listContextId);
  const pushUrl = nonEmpty(f?.pushUrl);
  return {
    taskId,
    contextId,
    messageId: nonEmpty(f?.messageId),
    pushConfigId: nonEmpty(f?.pushConfigId),
    blocking: op === 'SendMessage' ? isBlocking(f, complete, methodVersion) : undefined,
    historyLength: f?.historyLength,
    pushUrl,
    pushUrls: pushUrl === undefined ? undefined : [pushUrl],
    taskIds: namedTaskIds(f),
    contextIds: sends && nonEmpty(f?.messageContextId) !== undefined ? [f!.messageContextId!] : undefined,
    pageTokens: nonEmptyList(f?.pageTokens),
  };
}

/**
 * 1.0: return_immediately false/absent ⇒ blocking (§3.2.2, wire-reference §5.1). 0.3: no
 * configuration ⇒ blocking, as in JSON (wire-reference §6.3); a configuration without
 * `blocking: true` ⇒ not blocking, since proto3 cannot tell absent from false and the 0.3 server
 * of a2a-js reads it as `blocking: false`, i.e. returnImmediately (compat/v0_3 FromProto +
 * toCoreSendMessageConfiguration). `undefined` when the message was not read.
 */
function isBlocking(
  f: GrpcRequestFields | undefined,
  complete: boolean,
  version: ProtocolVersion,
): boolean | undefined {
  if (!complete || f === undefined) return undefined;
  if (version === '1.0') return f.returnImmediately !== true;
  return !f.configuration || f.blocking === true;
}

/** Every task id the message names (the intent of request-body.ts `namedTaskIds`): task ownership checks them all. */
function namedTaskIds(f: GrpcRequestFields | undefined): string[] | undefined {
  if (f === undefined) return undefined;
  let ids: string[] | undefined;
  const add = (id: string | undefined) => {
    if (id !== undefined && id !== '' && !ids?.includes(id)) (ids ??= []).push(id);
  };
  add(f.taskId);
  add(f.messageTaskId);
  for (const id of f.referenceTaskIds ?? []) add(id);
  for (const id of f.otherTaskIds ?? []) add(id);
  return ids;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === '' ? undefined : value;
}

function nonEmptyList(values: readonly (string | undefined)[] | undefined): string[] | undefined {
  const kept = values?.filter((v): v is string => v !== undefined && v !== '');
  return kept && kept.length > 0 ? kept : undefined;
}
