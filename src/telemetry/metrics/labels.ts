/**
 * The one place label values are made (principle 10). Every value comes from a closed set; anything
 * else becomes `other`, so no request — an unknown JSON-RPC method, a random path, a made-up task
 * id — can add a series. Ids never become labels: they go to traces and logs.
 */
import { BINDINGS, OPERATIONS, PROTOCOL_VERSIONS } from '../../a2a/operations.js';
import { TASK_STATES, type TaskState } from '../../a2a/task-state.js';
import { RULE_IDS } from '../../a2a/findings.js';
import { GATEWAY_ERROR_REASONS } from '../../errors/gateway-error.js';
import type { A2AFacts } from '../../exchange/record.js';
import { exchangeKind } from '../../exchange/kind.js';
import { ACCESS_DENIALS, PUSH_REFUSALS, RESCUE_OUTCOMES, RESCUE_STRATEGIES } from '../../exchange/record.js';
import { IDEMPOTENT_OUTCOMES, RESUME_OUTCOMES } from '../../exchange/record.js';

export const OTHER = 'other';
/** `state` of an exchange that carried no task. */
export const NO_STATE = 'none';

const METHODS: ReadonlySet<string> = new Set(OPERATIONS.filter((op) => op !== 'unknown'));
const STATES: ReadonlySet<string> = new Set(TASK_STATES);
const RULES: ReadonlySet<string> = new Set(RULE_IDS);
const REASONS: ReadonlySet<string> = new Set(GATEWAY_ERROR_REASONS);
const OUTCOMES: ReadonlySet<string> = new Set(RESCUE_OUTCOMES);
const STRATEGIES: ReadonlySet<string> = new Set(RESCUE_STRATEGIES);
const BINDING_SET: ReadonlySet<string> = new Set(BINDINGS);
const VERSIONS: ReadonlySet<string> = new Set(PROTOCOL_VERSIONS);
const DENIALS: ReadonlySet<string> = new Set(ACCESS_DENIALS);
const REFUSALS: ReadonlySet<string> = new Set(PUSH_REFUSALS);
const IDEMPOTENT: ReadonlySet<string> = new Set(IDEMPOTENT_OUTCOMES);
const RESUMES: ReadonlySet<string> = new Set(RESUME_OUTCOMES);

const closed = (set: ReadonlySet<string>, value: string | undefined): string =>
  value !== undefined && set.has(value) ? value : OTHER;

export interface Labeler {
  /** Configured agents keep their name; anything else is `other`. */
  agent(name: string): string;
  /** A reload changed the configured agents (src/reload/): from now on these keep their name. */
  setAgents(agents: readonly string[]): void;
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
  /** Why access control refused a call (ACCESS_DENIALS). */
  denial(reason: string): string;
  /** Why a push-notification webhook was refused (PUSH_REFUSALS). */
  pushRefusal(rule: string): string;
  /** What the idempotent-sends step did (IDEMPOTENT_OUTCOMES). */
  idempotentOutcome(outcome: string): string;
  /** What stream resume did (RESUME_OUTCOMES). */
  resumeOutcome(outcome: string): string;
}

export function createLabeler(agents: readonly string[]): Labeler {
  let known: ReadonlySet<string> = new Set(agents);
  return {
    agent: (name) => closed(known, name),
    setAgents: (next) => void (known = new Set(next)),
    method: (a2a) => closed(METHODS, a2a?.operation),
    binding: (a2a) => closed(BINDING_SET, a2a?.binding),
    version: (a2a) => closed(VERSIONS, a2a?.version),
    kind: exchangeKind,
    exchangeState: (a2a) => (a2a?.state === undefined ? NO_STATE : closed(STATES, a2a.state)),
    taskState: (state) => closed(STATES, state),
    rule: (rule) => closed(RULES, rule),
    reason: (reason) => closed(REASONS, reason),
    rescueOutcome: (outcome) => closed(OUTCOMES, outcome),
    rescueStrategy: (strategy) => closed(STRATEGIES, strategy),
    denial: (reason) => closed(DENIALS, reason),
    pushRefusal: (rule) => closed(REFUSALS, rule),
    idempotentOutcome: (outcome) => closed(IDEMPOTENT, outcome),
    resumeOutcome: (outcome) => closed(RESUMES, outcome),
  };
}
