/** Folds the decoders' request and response facts into the exchange record's A2A facts. */
import type { RequestFacts } from '../a2a/request.js';
import type { ResponseFacts } from '../a2a/response.js';
import type { A2AFacts, ExchangeKind } from '../exchange/record.js';

function kindOf(request: RequestFacts, response: ResponseFacts | undefined): ExchangeKind {
  const tag = response?.stream?.tag ?? response?.tag;
  if (tag === 'message' || tag === 'task' || tag === 'error') return tag;
  return 'other';
}

export function toFacts(request: RequestFacts, response: ResponseFacts | undefined, headersAfterMs: number): A2AFacts {
  const stream = response?.stream;
  const facts: A2AFacts = {
    binding:
      request.binding === 'unknown' ? (request.jsonrpcMethod !== undefined ? 'jsonrpc' : 'rest') : request.binding,
    version: request.version,
    operation: request.operation,
    kind: kindOf(request, response),
    partial: request.partial || (response?.partial ?? false),
  };
  const taskId = stream?.taskId ?? response?.taskId ?? request.taskId;
  const contextId = stream?.contextId ?? response?.contextId ?? request.contextId;
  const state = stream?.finalState ?? response?.state;
  if (taskId) facts.taskId = taskId;
  if (contextId) facts.contextId = contextId;
  if (request.messageId) facts.messageId = request.messageId;
  if (request.tenant) facts.tenant = request.tenant;
  if (state) facts.state = state;
  if (request.blocking !== undefined) facts.blocking = request.blocking;
  const error = stream?.error ?? response?.error;
  if (error)
    facts.error = {
      ...(error.code !== undefined ? { code: error.code } : {}),
      ...(error.reason !== undefined ? { reason: error.reason } : {}),
      ...(error.message !== undefined ? { message: error.message } : {}),
      ...(error.grpcStatus !== undefined ? { grpcStatus: error.grpcStatus } : {}),
    };
  if (stream) {
    facts.stream = {
      events: {
        task: stream.events.task,
        message: stream.events.message,
        statusUpdate: stream.events.statusUpdate,
        artifactUpdate: stream.events.artifactUpdate,
        error: stream.events.error,
      },
      agentKeepalives: stream.keepalives,
      ...(stream.firstEventMs !== undefined
        ? { firstEventMs: Math.round((stream.firstEventMs + headersAfterMs) * 1000) / 1000 }
        : {}),
    };
  }
  return facts;
}
