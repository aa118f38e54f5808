/**
 * Whether a call is translated (docs/translation.md): its agent has `translate`, the call is
 * JSON-RPC or HTTP+JSON, and its body is written in the other version (`wireVersion`: what the
 * agent would read, src/a2a/request-types.ts). A call the gateway could not classify (malformed
 * JSON, an unknown method or route) goes as it came: the agent answers it, untranslated. Pure.
 */
import type { JsonBinding, Operation, ProtocolVersion } from '../a2a/operations.js';
import type { RequestFacts } from '../a2a/request.js';

export interface Translation {
  readonly binding: JsonBinding;
  readonly operation: Operation;
  readonly caller: ProtocolVersion;
  readonly agent: ProtocolVersion;
}

export function translationOf(
  facts: RequestFacts | undefined,
  agentVersion: ProtocolVersion | undefined,
): Translation | undefined {
  if (agentVersion === undefined || facts === undefined) return undefined;
  if (facts.binding !== 'jsonrpc' && facts.binding !== 'rest') return undefined;
  if (facts.wireVersion === agentVersion || facts.malformed || facts.partial) return undefined;
  const op = facts.operation;
  if (op === 'unknown' || op === 'AgentCard') return undefined;
  return { binding: facts.binding, operation: op, caller: facts.wireVersion, agent: agentVersion };
}
