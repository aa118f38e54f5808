/**
 * Errors the gateway itself produces, in the caller's protocol (never HTML, never a stack):
 * - JSON-RPC: an error envelope with the request's id. Code -32000: JSON-RPC 2.0 leaves
 *   -32000…-32099 to servers and A2A claims -32001…-32099 (wire-reference §4.1), so -32000 is
 *   the one code that cannot be mistaken for an A2A error. `data` is an array of Any-typed
 *   objects holding a google.rpc.ErrorInfo, as A2A 1.0 does (wire-reference §4.2).
 * - HTTP+JSON: the A2A REST error body (spec §11.6, wire-reference §4.2) with an ErrorInfo.
 * ErrorInfo.domain is "a2a-gateway" so clients can tell gateway errors from the agent's.
 */
import type { ServerResponse } from 'node:http';
import type { GatewayError } from './gateway-error.js';
import type { RequestFacts } from '../a2a/request.js';
import type { JsonBinding, ProtocolVersion } from '../a2a/operations.js';
import { contentTypeFor, usesA2AJson } from '../a2a/content-type.js';

export const GATEWAY_ERROR_CODE = -32000;
export const GATEWAY_ERROR_DOMAIN = 'a2a-gateway';

export interface ErrorContext {
  readonly binding: JsonBinding;
  /** The JSON-RPC request id to echo (null when unknown, as JSON-RPC 2.0 §5 prescribes). */
  readonly jsonrpcId: string | number | null;
  readonly version: ProtocolVersion;
  /** The caller used application/a2a+json: the answer is written in it (src/a2a/content-type.ts). */
  readonly a2aJson?: boolean;
}

export const REST_CONTEXT: ErrorContext = { binding: 'rest', jsonrpcId: null, version: '1.0' };

function errorInfo(err: GatewayError) {
  return {
    '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
    reason: err.reason,
    domain: GATEWAY_ERROR_DOMAIN,
    metadata: err.metadata,
  };
}

export function errorBody(err: GatewayError, ctx: ErrorContext): string {
  if (ctx.binding === 'jsonrpc') {
    return JSON.stringify({
      jsonrpc: '2.0',
      id: ctx.jsonrpcId,
      error: { code: GATEWAY_ERROR_CODE, message: err.message, data: [errorInfo(err)] },
    });
  }
  return JSON.stringify({
    error: { code: err.status, status: err.rpcStatus, message: err.message, details: [errorInfo(err)] },
  });
}

export function sendGatewayError(
  res: ServerResponse,
  err: GatewayError,
  ctx: ErrorContext,
  extraHeaders: Record<string, string> = {},
): void {
  if (res.headersSent) {
    res.destroy(err);
    return;
  }
  const body = errorBody(err, ctx);
  res.writeHead(err.status, {
    'content-type': contentTypeFor(ctx.binding, ctx.version, ctx.a2aJson),
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    ...err.headers,
    ...extraHeaders,
  });
  res.end(body);
}

/** A mid-stream error as one SSE event: JSON-RPC error response, or REST `{"error":…}` with
 * `event: error` (the de-facto shapes, wire-reference §1.1, §1.2). */
export function sseErrorEvent(err: GatewayError, ctx: ErrorContext): string {
  const prefix = ctx.binding === 'rest' ? 'event: error\n' : '';
  return `${prefix}data: ${errorBody(err, ctx)}\n\n`;
}

/**
 * How to answer this caller, from the request's one classification (pipeline step 3): JSON-RPC
 * when the body is a JSON-RPC request (even one naming an unknown method), else REST. The
 * version, which picks the error's content type, is the `A2A-Version` header's (spec §3.6): what
 * the caller declared it reads; so does a Content-Type (or Accept) of application/a2a+json. No
 * facts (the decoder failed): REST, by the headers.
 */
export function errorContextOf(
  facts: RequestFacts | undefined,
  headers: Readonly<Record<string, string | string[] | undefined>>,
): ErrorContext {
  const versionHeader = headers['a2a-version'];
  const header = typeof versionHeader === 'string' ? versionHeader : undefined;
  const version: ProtocolVersion = header?.trim().startsWith('1.') ? '1.0' : '0.3';
  const a2aJson = facts?.a2aJson ?? usesA2AJson(headers);
  if (!facts) return { ...REST_CONTEXT, version, a2aJson };
  const jsonrpc = facts.binding === 'jsonrpc' || (facts.binding === 'unknown' && facts.jsonrpcMethod !== undefined);
  if (!jsonrpc) return { binding: 'rest', jsonrpcId: null, version, a2aJson };
  const id = facts.jsonrpcId;
  const jsonrpcId = typeof id === 'string' || typeof id === 'number' ? id : null;
  return { binding: 'jsonrpc', jsonrpcId, version, a2aJson };
}
