/**
 * Whether the timeout rescue takes a request: one pure function of the request's one
 * classification (src/a2a/request.ts, principle 4), the same for every binding, so JSON-RPC,
 * REST and gRPC cannot disagree on what a blocking send is. Nothing here reads the body again.
 */
import type { BlockingSend } from '../a2a/rescue-wire.js';
import type { RequestFacts } from '../a2a/request.js';
import type { AgentConfig } from '../config/schema.js';

export type { BlockingSend } from '../a2a/rescue-wire.js';

/**
 * The send to rescue, or undefined to forward: the agent has `timeoutRescue.enabled` and the
 * request is a SendMessage that waits for a terminal or interrupted state — 1.0
 * `returnImmediately` absent or false, 0.3 `blocking` absent or true, read in the body's own
 * version (wire-reference §5.1, §6.3; `RequestFacts.blocking`).
 */
export function rescueDecision(
  facts: RequestFacts | undefined,
  rescue: Pick<AgentConfig['timeoutRescue'], 'enabled'>,
): BlockingSend | undefined {
  if (!rescue.enabled || facts === undefined || facts.binding === 'unknown') return undefined;
  if (facts.operation !== 'SendMessage' || facts.blocking !== true) return undefined;
  return sendOf(facts);
}

/** A send as the rescue's calls and answer need it, read in the version its body is written in. */
export function sendOf(facts: RequestFacts): BlockingSend | undefined {
  if (facts.binding === 'unknown') return undefined;
  const id = facts.jsonrpcId;
  return {
    binding: facts.binding,
    version: facts.wireVersion,
    jsonrpcId: typeof id === 'string' || typeof id === 'number' ? id : null,
    ...(facts.historyLength !== undefined ? { historyLength: facts.historyLength } : {}),
    ...(facts.tenant ? { tenant: facts.tenant } : {}),
    ...(facts.a2aJson ? { a2aJson: true } : {}),
    followUp: !!facts.taskId,
  };
}
