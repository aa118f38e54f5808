/**
 * The one place label values are made (principle 10). Every value comes from a closed set; anything
 * else becomes `other`, so no request — an unknown JSON-RPC method, a random path, a made-up task
 * id — can add a series. Ids never become labels: they go to traces and logs.
 */
import { OPERATIONS, TASK_STATES, type TaskState } from '../a2a/operations.js';
import { RULE_IDS } from '../a2a/findings.js';
import type { GatewayErrorReason } from '../transport/errors.js';
import type { A2AFacts, ExchangeKind, StreamEventKind } from '../proxy/exchange.js';

export const OTHER = 'other';
/** `state` of an exchange that carried no task. */
export const NO_STATE = 'none';

export const KINDS: readonly ExchangeKind[] = ['message', 'task', 'error', 'other'];
export const STREAM_EVENTS: readonly StreamEventKind[] = ['task', 'message', 'statusUpdate', 'artifactUpdate', 'error'];
export const GATEWAY_REASONS = [
  'AGENT_NOT_FOUND',
  'UPSTREAM_UNREACHABLE',
  'UPSTREAM_TIMEOUT',
  'UPSTREAM_RESET',
  'UPSTREAM_INVALID',
  'REQUEST_INVALID',
  'SHUTTING_DOWN',
  'INTERNAL',
] as const satisfies readonly GatewayErrorReason[];
/** The reasons that mean the agent could not be reached or failed mid-answer. */
export const UPSTREAM_REASONS = [
  'UPSTREAM_UNREACHABLE',
  'UPSTREAM_TIMEOUT',
  'UPSTREAM_RESET',
  'UPSTREAM_INVALID',
] as const satisfies readonly GatewayErrorReason[];
export const RESCUE_OUTCOMES = ['settled', 'deadline', 'message', 'error', 'client-gone', 'agent-blocked'] as const;
export const RESCUE_STRATEGIES = ['stream', 'subscribe', 'poll'] as const;

const METHODS: ReadonlySet<string> = new Set(OPERATIONS.filter((op) => op !== 'unknown'));
const STATES: ReadonlySet<string> = new Set(TASK_STATES);
const RULES: ReadonlySet<string> = new Set(RULE_IDS);
const REASONS: ReadonlySet<string> = new Set(GATEWAY_REASONS);
const OUTCOMES: ReadonlySet<string> = new Set(RESCUE_OUTCOMES);
const STRATEGIES: ReadonlySet<string> = new Set(RESCUE_STRATEGIES);

const closed = (set: ReadonlySet<string>, value: string | undefined): string =>
  value !== undefined && set.has(value) ? value : OTHER;

export interface Labeler {
  /** Configured agents keep their name; anything else is `other`. */
  agent(name: string): string;
  method(a2a: A2AFacts | undefined): string;
  binding(a2a: A2AFacts | undefined): string;
  version(a2a: A2AFacts | undefined): string;
  kind(a2a: A2AFacts | undefined): string;
  /** The exchange's final task state, or `none`. */
  exchangeState(a2a: A2AFacts | undefined): string;
  taskState(state: TaskState | string): string;
  rule(rule: string): string;
  reason(reason: string | undefined): string;
  rescueOutcome(outcome: string | undefined): string;
  rescueStrategy(strategy: string): string;
}

export function createLabeler(agents: readonly string[]): Labeler {
  const known = new Set(agents);
  return {
    agent: (name) => closed(known, name),
    method: (a2a) => closed(METHODS, a2a?.operation),
    binding: (a2a) => (a2a?.binding === 'jsonrpc' || a2a?.binding === 'rest' ? a2a.binding : OTHER),
    version: (a2a) => (a2a?.version === '1.0' || a2a?.version === '0.3' ? a2a.version : OTHER),
    kind: (a2a) => (a2a && KINDS.includes(a2a.kind) ? a2a.kind : OTHER),
    exchangeState: (a2a) => (a2a?.state === undefined ? NO_STATE : closed(STATES, a2a.state)),
    taskState: (state) => closed(STATES, state),
    rule: (rule) => closed(RULES, rule),
    reason: (reason) => closed(REASONS, reason),
    rescueOutcome: (outcome) => closed(OUTCOMES, outcome),
    rescueStrategy: (strategy) => closed(STRATEGIES, strategy),
  };
}
