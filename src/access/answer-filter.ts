/**
 * The ListTasks filter of task ownership in the caller's binding (`Admission.answerFilter`,
 * gate.ts): a JSON body rewrite for JSON-RPC and REST (list-tasks.ts), a message rewrite for gRPC
 * (list-tasks-grpc.ts). Each pipeline asks for its own binding and gets its own kind of rewrite.
 * Both seal the page's `nextPageToken` for the caller (page-tokens.ts).
 */
import type { Binding, JsonBinding } from '../a2a/operations.js';
import type { MessageRewrite } from '../exchange/answer-rewrite.js';
import type { BodyRewrite } from '../exchange/answer-rewrite.js';
import { listTasksFilter, type OwnersOf } from './list-tasks.js';
import { grpcListTasksFilter } from './list-tasks-grpc.js';
import type { SealPageToken } from './page-tokens.js';

export interface AnswerFilter {
  (binding: JsonBinding): BodyRewrite;
  (binding: 'grpc'): MessageRewrite;
}

/** The filter of `caller`'s ListTasks answers from `agent`. */
export function ownedTasksFilter(agent: string, caller: string, ownersOf: OwnersOf, seal: SealPageToken): AnswerFilter {
  function filter(binding: JsonBinding): BodyRewrite;
  function filter(binding: 'grpc'): MessageRewrite;
  function filter(binding: Binding): BodyRewrite | MessageRewrite {
    return binding === 'grpc'
      ? grpcListTasksFilter(agent, caller, ownersOf, seal)
      : listTasksFilter(agent, binding, caller, ownersOf, seal);
  }
  return filter;
}
