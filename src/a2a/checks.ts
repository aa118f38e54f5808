/**
 * Checks of an answer against the request it answers, shared by unary responses and stream
 * events. Each adds at most a finding; none changes facts.
 */
import { scalarOf, type Json } from '../codec/json-value.js';
import type { FindingSink } from './findings.js';
import type { Payload } from './payload.js';
import type { RequestFacts } from './request.js';

/** What the response side needs to know about the request. */
export type RequestContext = Pick<
  RequestFacts,
  'binding' | 'version' | 'operation' | 'jsonrpcId' | 'jsonrpcIdPresent' | 'taskId' | 'blocking' | 'historyLength'
>;

/**
 * historyLength (§3.2.4, wire-reference §5.6): 1.0 — 0 means no history, N at most N messages;
 * 0.3 — 0 meant unlimited.
 */
export function checkHistory(req: RequestContext, payload: Payload, findings: FindingSink): void {
  const limit = req.historyLength;
  const count = payload.historyCount;
  if (payload.kind !== 'task' || limit === undefined || count === undefined || limit < 0) return;
  if (limit === 0 && req.version === '0.3') return;
  if (count > limit) findings.add('a2a.history-length-exceeded', `asked ${limit}, got ${count}`);
}

/**
 * A JSON-RPC response (and every stream event, §9.4.2) echoes the request id (JSON-RPC 2.0 §5).
 * `null` is allowed on errors when the server could not read the id (parse error, or a request
 * refused before parsing, as in `v1--edge-rpc-a2a-json-content-type.http`).
 */
export function checkJsonRpcId(
  req: RequestContext,
  doc: unknown,
  complete: boolean,
  isError: boolean,
  findings: FindingSink,
): void {
  if (req.binding !== 'jsonrpc' || req.jsonrpcIdPresent !== true) return;
  const raw = (doc as Json)?.id;
  if (raw === undefined && !complete) return;
  const id = scalarOf(raw);
  if (id === null && isError) return;
  if (raw === undefined || id !== req.jsonrpcId) {
    findings.add(
      'a2a.jsonrpc-id-mismatch',
      `request ${JSON.stringify(req.jsonrpcId)}, response ${raw === undefined ? 'none' : JSON.stringify(id)}`,
    );
  }
}

/** A server must answer in the version the request asked for (§3.6.2). */
export function checkShape(req: RequestContext, payload: Payload, findings: FindingSink): void {
  if (req.binding === 'unknown' || payload.shape === undefined || payload.shape === req.version) return;
  findings.add('a2a.version-shape-mismatch', `${req.version} request, ${payload.shape} ${payload.kind ?? 'payload'}`);
}

/** The answer must concern the task the request named (§3.4.3, §3.1.2). */
export function checkTaskId(expected: string | undefined, payload: Payload, findings: FindingSink): void {
  if (expected === undefined || payload.taskId === undefined || payload.kind === 'message') return;
  if (payload.taskId !== expected) findings.add('a2a.task-id-mismatch', `expected ${expected}, got ${payload.taskId}`);
}
