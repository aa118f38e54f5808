/**
 * Errors across versions (wire-reference §4): the JSON-RPC code stays; what the versions spell
 * differently is around it. 1.0 JSON-RPC `data` is an array of `@type` objects with an ErrorInfo,
 * 0.3's is free-form; 1.0 HTTP+JSON errors are the Google API error body with an ErrorInfo
 * (§11.6), 0.3's the SDK's `{code, message}`. The reason ⇔ code table is the spec's (§4.1).
 */
import { isObj, type Obj } from './shapes.js';

const DOMAIN = 'a2a-protocol.org';
const INFO_TYPE = 'type.googleapis.com/google.rpc.ErrorInfo';

/** JSON-RPC code, ErrorInfo reason and google.rpc status name (wire-reference §4.1, v1.0.1). */
const TABLE: readonly (readonly [code: number, reason: string, status: string])[] = [
  [-32001, 'TASK_NOT_FOUND', 'NOT_FOUND'],
  [-32002, 'TASK_NOT_CANCELABLE', 'FAILED_PRECONDITION'],
  [-32003, 'PUSH_NOTIFICATION_NOT_SUPPORTED', 'FAILED_PRECONDITION'],
  [-32004, 'UNSUPPORTED_OPERATION', 'FAILED_PRECONDITION'],
  [-32005, 'CONTENT_TYPE_NOT_SUPPORTED', 'INVALID_ARGUMENT'],
  [-32006, 'INVALID_AGENT_RESPONSE', 'INTERNAL'],
  [-32007, 'EXTENDED_AGENT_CARD_NOT_CONFIGURED', 'FAILED_PRECONDITION'],
  [-32008, 'EXTENSION_SUPPORT_REQUIRED', 'FAILED_PRECONDITION'],
  [-32009, 'VERSION_NOT_SUPPORTED', 'FAILED_PRECONDITION'],
  [-32602, 'INVALID_ARGUMENT', 'INVALID_ARGUMENT'],
  [-32600, 'INVALID_REQUEST', 'INVALID_ARGUMENT'],
  [-32601, 'METHOD_NOT_FOUND', 'NOT_FOUND'],
  [-32700, 'PARSE_ERROR', 'INVALID_ARGUMENT'],
  [-32603, 'INTERNAL', 'INTERNAL'],
];
const BY_CODE = new Map(TABLE.map(([code, reason, status]) => [code, { reason, status }]));
const BY_REASON = new Map([
  ...TABLE.map(([code, reason]) => [reason, code] as const),
  // a2a-js 1.x spells the invalid-params reason so (its RequestMalformedError, capture v1--edge-rest-history-negative).
  ['INVALID_PARAMS', -32602],
]);

/** A JSON-RPC `error` member, 0.3 → 1.0: `data` becomes `[ErrorInfo, original data]`. */
export function rpcErrorUp(error: Obj): Obj {
  if (Array.isArray(error['data'])) return error;
  const known = typeof error['code'] === 'number' ? BY_CODE.get(error['code']) : undefined;
  const data: unknown[] = known ? [{ '@type': INFO_TYPE, reason: known.reason, domain: DOMAIN }] : [];
  // google.protobuf.Any's JSON form of a Value (proto3 JSON mapping): the 0.3 data, kept whole.
  if (error['data'] !== undefined)
    data.push({ '@type': 'type.googleapis.com/google.protobuf.Value', value: error['data'] });
  return data.length === 0 ? error : { ...error, data };
}

/** 1.0 → 0.3: `data` is free-form in 0.3, so it goes as it is. */
export function rpcErrorDown(error: Obj): Obj {
  return error;
}

/** An HTTP+JSON error body, 0.3 `{code, message}` → 1.0 `{error: {code, status, message, details}}`. */
export function restErrorUp(body: unknown, httpStatus: number): unknown {
  if (!isObj(body) || isObj(body['error']) || typeof body['code'] !== 'number') return body;
  const known = BY_CODE.get(body['code']);
  const details = known ? [{ '@type': INFO_TYPE, reason: known.reason, domain: DOMAIN }] : [];
  const status = known?.status ?? (httpStatus >= 500 ? 'INTERNAL' : 'UNKNOWN');
  return { error: { code: httpStatus, status, message: body['message'] ?? '', details } };
}

/** 1.0 → 0.3: the ErrorInfo's reason back to its JSON-RPC code (unknown: -32603). */
export function restErrorDown(body: unknown): unknown {
  if (!isObj(body) || !isObj(body['error'])) return body;
  const error = body['error'];
  const details = Array.isArray(error['details']) ? error['details'] : [];
  const info = details.find((d) => isObj(d) && d['@type'] === INFO_TYPE) as Obj | undefined;
  const byReason = typeof info?.['reason'] === 'string' ? BY_REASON.get(info['reason']) : undefined;
  // No known reason: a validation failure (INVALID_ARGUMENT, §3.3.2) is still -32602, not an internal error.
  const code = byReason ?? (error['status'] === 'INVALID_ARGUMENT' ? -32602 : -32603);
  return { code, message: error['message'] ?? '' };
}
