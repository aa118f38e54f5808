/**
 * Facts of a unary (non-streaming) JSON response: what it carries (task, message, error or
 * something else), the task's ids and state, and the checks against the request.
 * Errors are classified by JSON-RPC code or REST ErrorInfo `reason`, not by HTTP status, which
 * changed between 1.0.0 and 1.0.1 (wire-reference §4.1, §7.1 #6); the status is kept alongside.
 */
import { compileScanPlan, withContainers } from '../codec/json-scan.js';
import { isObject, str, type Json } from '../codec/json-value.js';
import type { JsonBodyStatus } from '../codec/json-body.js';
import { checkHistory, checkJsonRpcId, checkShape, checkTaskId, type RequestContext } from './checks.js';
import type { FindingSink } from './findings.js';
import { isInterrupted, isTerminal } from './task-state.js';
import {
  ERROR_PATHS,
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

/** Every path the readers use (test/a2a/plan-coverage.test.ts checks it on the captures). */
export const UNARY_PLAN = compileScanPlan(
  withContainers(['', 'jsonrpc', 'id', 'result', ...payloadPaths('result'), ...payloadPaths(''), ...ERROR_PATHS]),
);

const NO_PAYLOAD: Payload = { kind: undefined, ambiguous: false };

export function decodeUnary(
  req: RequestContext,
  httpStatus: number,
  doc: unknown,
  complete: boolean,
  status: JsonBodyStatus,
  findings: FindingSink,
): UnaryFacts {
  if (status === 'malformed') {
    // Not valid JSON: nothing in it is trusted (a finding says so); the status still tells errors.
    return httpStatus >= 400
      ? { tag: 'error', payload: NO_PAYLOAD, error: { httpStatus } }
      : { tag: 'other', payload: NO_PAYLOAD };
  }
  const binding = req.binding === 'jsonrpc' || (doc as Json)?.jsonrpc !== undefined ? 'jsonrpc' : 'rest';
  const error =
    status === 'empty' ? (httpStatus >= 400 ? { httpStatus } : undefined) : readError(doc, httpStatus, binding);
  if (binding === 'jsonrpc' && status !== 'empty') checkJsonRpcId(req, doc, complete, error !== undefined, findings);
  if (error !== undefined) return { tag: 'error', payload: NO_PAYLOAD, error };

  const root: PayloadRoot = binding === 'jsonrpc' ? 'result' : '';
  const payload = readPayload(doc, root, binding);
  if (req.operation === 'SendMessage') checkSendResult(doc, complete, root, payload, findings);
  checkShape(req, payload, findings);
  checkTaskId(req.taskId, payload, findings);
  checkHistory(req, payload, findings);
  if (
    req.operation === 'SendMessage' &&
    req.blocking === true &&
    payload.kind === 'task' &&
    payload.state !== undefined
  ) {
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
 * JSON-RPC returned the bare Task or Message with its `kind` instead (wire-reference §6.3).
 */
function checkSendResult(
  doc: unknown,
  complete: boolean,
  root: PayloadRoot,
  payload: Payload,
  findings: FindingSink,
): void {
  const result = root === '' ? (doc as Json) : (doc as Json)?.result;
  const members =
    (isObject(result?.task) ? 1 : 0) + (isObject(result?.message) ? 1 : 0) + (isObject(result?.msg) ? 1 : 0);
  if (members > 1 || payload.ambiguous) {
    findings.add('a2a.send-result-shape', 'both task and message');
    return;
  }
  if (members === 1) return;
  const kind = str(result?.kind);
  if ((kind === 'task' || kind === 'message') && payload.kind !== undefined) return;
  if (complete) findings.add('a2a.send-result-shape', 'neither task nor message');
}
