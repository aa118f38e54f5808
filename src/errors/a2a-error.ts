/**
 * A2A errors the gateway answers itself, in the shape an A2A agent would (wire-reference §4):
 * TaskNotFound for a task the caller does not own (task ownership must not reveal that the task
 * exists, spec §3.3.2 and wire-reference §4.1 "not-found MUST NOT reveal existence"), and
 * InvalidParams for a push webhook the SSRF guard refuses. Unlike a GatewayError (domain
 * a2a-gateway, code -32000) these are the protocol's own errors, so SDK clients raise their
 * ordinary TaskNotFound / invalid-params errors.
 *
 * Shapes: JSON-RPC 1.0 with `data` = [ErrorInfo] (§4.2); 0.3 JSON-RPC without `data`, as the 0.3
 * SDK agent answers; REST 1.0 the Google API error body with ErrorInfo (§11.6); REST 0.3 the SDK's
 * `{code, message}` with the HTTP status its REST handler maps the code to.
 */
import type { ServerResponse } from 'node:http';
import { contentTypeFor } from '../a2a/content-type.js';
import type { ErrorContext } from './json-answer.js';
import { A2A_ERROR_DOMAIN, A2A_ERROR_TABLE, type A2AErrorName, type A2AErrorRow } from '../a2a/error-table.js';

/** Which row of the spec's error table (src/a2a/error-table.ts) each error answers with; the
 * gateway's own variants keep the row (so SDK clients raise the same error type) and say why in
 * their ErrorInfo (domain a2a-gateway). */
const KINDS = {
  TaskNotFound: {
    row: 'TaskNotFoundError',
    reason: A2A_ERROR_TABLE.TaskNotFoundError.reason,
    domain: A2A_ERROR_DOMAIN,
  },
  /** TaskNotFound for a task whose replica is gone (docs/fleet.md "Task affinity"): SDK clients raise TaskNotFound; the ErrorInfo says why. */
  TaskReplicaGone: { row: 'TaskNotFoundError', reason: 'TASK_REPLICA_GONE', domain: 'a2a-gateway' },
  /** The push-webhook guard's refusal (src/access/push-guard.ts): a validation error (§3.3.2). */
  InvalidParams: { row: 'InvalidParamsError', reason: 'PUSH_URL_REFUSED', domain: 'a2a-gateway' },
  /** A translated call (src/translate/) the agent's version has no operation for. */
  UnsupportedOperation: {
    row: 'UnsupportedOperationError',
    reason: A2A_ERROR_TABLE.UnsupportedOperationError.reason,
    domain: A2A_ERROR_DOMAIN,
  },
  /** A call that cannot be translated to the agent's version without changing its meaning (a validation error). */
  Untranslatable: { row: 'InvalidParamsError', reason: 'UNTRANSLATABLE', domain: 'a2a-gateway' },
  /** A JSON-RPC batch (an array body): A2A defines single requests only, so it is not a request the gateway can check. */
  JsonRpcBatch: { row: 'InvalidRequestError', reason: 'JSONRPC_BATCH', domain: 'a2a-gateway' },
} as const satisfies Record<string, { row: A2AErrorName; reason: string; domain: string }>;

export type A2AErrorKind = keyof typeof KINDS;

export class A2AError extends Error {
  constructor(
    readonly kind: A2AErrorKind,
    message: string,
    readonly metadata: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'A2AError';
  }

  /** The reason records and logs show (the ErrorInfo reason). */
  get reason(): string {
    return KINDS[this.kind].reason;
  }

  get domain(): string {
    return KINDS[this.kind].domain;
  }

  /** The spec's TaskNotFound (code -32001, NOT_FOUND), whatever the gateway's reason for it. */
  get notFound(): boolean {
    return this.specName === 'TaskNotFoundError';
  }

  /** The spec's name of the error this one answers as (its row in src/a2a/error-table.ts). */
  get specName(): A2AErrorName {
    return KINDS[this.kind].row;
  }

  /** The row of the spec's error table this error answers with. */
  get row(): A2AErrorRow {
    return A2A_ERROR_TABLE[this.specName];
  }
}

/** A task pinned to a replica that is gone (removed from the config, or down): never resent elsewhere. */
export function taskReplicaGone(taskId: string, agent: string, replica: string, why: string): A2AError {
  const message = `Task not found: ${taskId} (it lives on replica ${replica} of agent ${agent}, which is ${why})`;
  return new A2AError('TaskReplicaGone', message, { taskId, agent, replica });
}

/**
 * The refusal of a JSON-RPC batch (issue #29): JSON-RPC's InvalidRequest (-32600; HTTP 200, id
 * null, as JSON-RPC 2.0 §6 answers a batch it cannot take), never forwarded — the gateway's checks
 * read one request, and an agent serving batches would act on elements none of them saw.
 */
export function jsonRpcBatchRefused(): A2AError {
  return new A2AError('JsonRpcBatch', 'JSON-RPC batch requests are not supported: send one request per call');
}

/** The spec's TaskNotFound, worded as the official SDK agents word it. */
export function taskNotFound(taskId: string): A2AError {
  return new A2AError('TaskNotFound', `Task not found: ${taskId}`, { taskId });
}

export function a2aErrorBody(err: A2AError, ctx: ErrorContext): string {
  const { row } = err;
  const info = {
    '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
    reason: err.reason,
    domain: err.domain,
    metadata: err.metadata,
  };
  if (ctx.binding === 'jsonrpc') {
    const error = { code: row.jsonrpc, message: err.message, ...(ctx.version === '1.0' ? { data: [info] } : {}) };
    return JSON.stringify({ jsonrpc: '2.0', id: ctx.jsonrpcId, error });
  }
  if (ctx.version === '0.3') return JSON.stringify({ code: row.jsonrpc, message: err.message });
  return JSON.stringify({ error: { code: row.http, status: row.grpc, message: err.message, details: [info] } });
}

/** The HTTP status of `err` for this caller: JSON-RPC answers with 200 (JSON-RPC over HTTP, as the
 * SDK agents do), REST with the table's status of the caller's version. */
export function a2aErrorStatus(err: A2AError, ctx: ErrorContext): number {
  if (ctx.binding === 'jsonrpc') return 200;
  return ctx.version === '0.3' ? (err.row.http03 ?? err.row.http) : err.row.http;
}

/**
 * `streaming`: the request asked for an SSE stream. A 0.3 JSON-RPC agent answers a streaming call
 * that fails at once with a 200 event stream holding one `event: error` (the 0.3.14 SDK server;
 * its client accepts nothing else for a stream), so the gateway does the same.
 */
export function sendA2AError(res: ServerResponse, err: A2AError, ctx: ErrorContext, streaming = false): void {
  if (res.headersSent) {
    res.destroy(err);
    return;
  }
  const body = a2aErrorBody(err, ctx);
  if (streaming && ctx.binding === 'jsonrpc' && ctx.version === '0.3') {
    const event = `event: error\ndata: ${body}\n\n`;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
    res.end(event);
    return;
  }
  res.writeHead(a2aErrorStatus(err, ctx), {
    'content-type': contentTypeFor(ctx.binding, ctx.version, ctx.a2aJson),
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
  });
  res.end(body);
}

/** A mid-stream A2A error as one SSE event, in the shapes of json-answer.ts `sseErrorEvent`. */
export function sseA2AErrorEvent(err: A2AError, ctx: ErrorContext): string {
  const prefix = ctx.binding === 'rest' ? 'event: error\n' : '';
  return `${prefix}data: ${a2aErrorBody(err, ctx)}\n\n`;
}
