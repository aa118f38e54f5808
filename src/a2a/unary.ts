/**
 * Facts of a unary (non-streaming) JSON response: what it carries (task, message, error or
 * something else), the task's ids and state, and the checks against the request.
 * Errors are classified by JSON-RPC code or REST ErrorInfo `reason`, not by HTTP status, which
 * changed between 1.0.0 and 1.0.1 (wire-ref §4.1, §7.1 #6); the status is kept alongside.
 */
import { compileScanPlan } from '../codec/json-scan.js';
import { fieldPath, has, isObjectAt, pathsIn, stringAt, type JsonFields } from '../codec/json-fields.js';
import type { JsonBodyStatus } from '../codec/json-body.js';
import { checkHistory, checkJsonRpcId, checkShape, checkTaskId, type RequestContext } from './checks.js';
import type { FindingSink } from './findings.js';
import { isInterrupted, isTerminal } from './task-state.js';
import {
  ERROR_PATHS,
  ERROR_TABLE,
  PAYLOAD_TABLES,
  payloadPaths,
  readError,
  readPayload,
  type ErrorFacts,
  type Payload,
  type PayloadRoot,
} from './payload.js';

export type ResponseTag = 'message' | 'task' | 'error' | 'other';

export interface UnaryFacts {
  readonly tag: ResponseTag;
  readonly payload: Payload;
  readonly error?: ErrorFacts;
}

const JSONRPC = fieldPath('jsonrpc');

export const UNARY_PLAN = compileScanPlan([
  '',
  'jsonrpc',
  'id',
  'result',
  ...payloadPaths('result'),
  ...payloadPaths(''),
  ...ERROR_PATHS,
  ...pathsIn([PAYLOAD_TABLES, ERROR_TABLE]),
]);

const NO_PAYLOAD: Payload = { kind: undefined, ambiguous: false };

export function decodeUnary(
  req: RequestContext,
  httpStatus: number,
  fields: JsonFields,
  status: JsonBodyStatus,
  findings: FindingSink,
): UnaryFacts {
  if (status === 'malformed') {
    // Not valid JSON: nothing in it is trusted (a finding says so); the status still tells errors.
    return httpStatus >= 400 ? { tag: 'error', payload: NO_PAYLOAD, error: { httpStatus } } : { tag: 'other', payload: NO_PAYLOAD };
  }
  const binding = req.binding === 'jsonrpc' || has(fields, JSONRPC) ? 'jsonrpc' : 'rest';
  const error = status === 'empty' ? (httpStatus >= 400 ? { httpStatus } : undefined) : readError(fields, httpStatus, binding);
  if (binding === 'jsonrpc' && status !== 'empty') checkJsonRpcId(req, fields, error !== undefined, findings);
  if (error !== undefined) return { tag: 'error', payload: NO_PAYLOAD, error };

  const root: PayloadRoot = binding === 'jsonrpc' ? 'result' : '';
  const payload = readPayload(fields, root, binding);
  if (req.operation === 'SendMessage') checkSendResult(fields, root, payload, findings);
  checkShape(req, payload, findings);
  checkTaskId(req.taskId, payload, findings);
  checkHistory(req, payload, findings);
  if (req.operation === 'SendMessage' && req.blocking === true && payload.kind === 'task' && payload.state !== undefined) {
    // §3.2.2: a blocking send returns only once the task is terminal or interrupted.
    if (!isTerminal(payload.state) && !isInterrupted(payload.state, req.version)) {
      findings.add('a2a.blocking-send-not-final', payload.state);
    }
  }
  const tag: ResponseTag = payload.kind === 'task' ? 'task' : payload.kind === 'message' ? 'message' : 'other';
  return { tag, payload };
}

/**
 * SendMessageResponse is a oneof: exactly one of `task` / `message` (§9.4.1, §11.4); 0.3
 * JSON-RPC returned the bare Task or Message with its `kind` instead (wire-ref §6.3).
 */
function checkSendResult(fields: JsonFields, root: PayloadRoot, payload: Payload, findings: FindingSink): void {
  const table = PAYLOAD_TABLES[root];
  let members = 0;
  for (const key of table.sendResultKeys) if (isObjectAt(fields, key)) members++;
  if (members > 1 || payload.ambiguous) {
    findings.add('a2a.send-result-shape', 'both task and message');
    return;
  }
  if (members === 1) return;
  const kind = stringAt(fields, table.bare.kind);
  if ((kind === 'task' || kind === 'message') && payload.kind !== undefined) return;
  if (fields.complete) findings.add('a2a.send-result-shape', 'neither task nor message');
}
