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
import type { GatewayError } from '../transport/errors.js';
import type { RequestFacts } from '../a2a/request.js';

export const GATEWAY_ERROR_CODE = -32000;
export const GATEWAY_ERROR_DOMAIN = 'a2a-gateway';

export interface ErrorContext {
  readonly binding: 'jsonrpc' | 'rest';
  /** The JSON-RPC request id to echo (null when unknown, as JSON-RPC 2.0 §5 prescribes). */
  readonly jsonrpcId: string | number | null;
  readonly version: '1.0' | '0.3';
}

export const REST_CONTEXT: ErrorContext = { binding: 'rest', jsonrpcId: null, version: '1.0' };

/** What the sniff learns: the error context plus the JSON-RPC method, when there is one. */
export interface RequestSniff extends ErrorContext {
  readonly jsonrpcMethod?: string;
}

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

/** REST 1.0 SHOULD use application/a2a+json (spec §11.1); JSON-RPC and 0.3 use application/json. */
function contentType(ctx: ErrorContext): string {
  return ctx.binding === 'rest' && ctx.version === '1.0' ? 'application/a2a+json' : 'application/json';
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
    'content-type': contentType(ctx),
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
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

/** The same, from the request's classification (the usual case: the whole body was read). */
export function requestSniff(facts: RequestFacts): RequestSniff {
  const binding =
    facts.binding === 'jsonrpc' || (facts.binding === 'unknown' && facts.jsonrpcMethod !== undefined)
      ? 'jsonrpc'
      : 'rest';
  const id = facts.jsonrpcId;
  return {
    binding,
    jsonrpcId: typeof id === 'string' || typeof id === 'number' ? id : null,
    // For the error's content type: the A2A-Version header decides (spec §3.6), as in sniffRequest.
    version: facts.versionHeader?.trim().startsWith('1.') ? '1.0' : '0.3',
    ...(facts.jsonrpcMethod !== undefined ? { jsonrpcMethod: facts.jsonrpcMethod } : {}),
  };
}

/**
 * The least the gateway must know to answer in the caller's protocol, taken from the request
 * alone: a POST whose JSON body has "jsonrpc" is JSON-RPC; everything else is REST. Cheap, and
 * never throws on hostile input.
 */
export function sniffRequest(
  method: string,
  headers: Record<string, string | string[] | undefined>,
  body: Buffer,
  complete: boolean,
): RequestSniff {
  const header = headers['a2a-version'];
  const version: '1.0' | '0.3' = typeof header === 'string' && header.trim().startsWith('1.') ? '1.0' : '0.3';
  if (method !== 'POST' || body.length === 0) return { ...REST_CONTEXT, version };
  const first = body.subarray(0, 64).toString('latin1').trimStart();
  if (!first.startsWith('{')) return { ...REST_CONTEXT, version };
  if (complete) {
    try {
      const parsed: unknown = JSON.parse(body.toString('utf8'));
      if (parsed && typeof parsed === 'object' && 'jsonrpc' in parsed) {
        const { id, method: rpcMethod } = parsed as { id?: unknown; method?: unknown };
        return {
          binding: 'jsonrpc',
          jsonrpcId: typeof id === 'string' || typeof id === 'number' ? id : null,
          version,
          ...(typeof rpcMethod === 'string' ? { jsonrpcMethod: rpcMethod } : {}),
        };
      }
      return { ...REST_CONTEXT, version };
    } catch {
      // Not JSON: fall through to the textual sniff.
    }
  }
  if (!/"jsonrpc"\s*:/.test(body.subarray(0, 4096).toString('latin1'))) return { ...REST_CONTEXT, version };
  const id = /"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+)/.exec(body.subarray(0, 4096).toString('utf8'))?.[1];
  let jsonrpcId: string | number | null = null;
  if (id) {
    try {
      jsonrpcId = JSON.parse(id) as string | number;
    } catch {
      jsonrpcId = null;
    }
  }
  return { binding: 'jsonrpc', jsonrpcId, version };
}
