/**
 * Every Prometheus family the gateway exports, declared in one list (principle 10; as Envoy
 * declares its stats). Names, label names and buckets are a public contract: the dashboard and
 * the alert rules in `dashboards/` query them. Units are in the name (`_seconds`, `_total`),
 * following https://prometheus.io/docs/practices/naming/.
 */

/** A metric family as declared below: what prom-client's and the cell metrics are built from. */
export interface FamilyDef {
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly string[];
}
export interface HistogramFamilyDef extends FamilyDef {
  readonly buckets: readonly number[];
}

/** Requests and streams: a few milliseconds (GetTask) to long blocking sends and open streams. */
const REQUEST_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600];
/** Time to first SSE event: the agent's first reaction, normally well under a minute. */
const FIRST_EVENT_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
/** Tasks: milliseconds (an immediate rejection) to an hour of agent work. */
const TASK_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1200, 1800, 3600];
/** Settled task → client's answer in the timeout rescue: milliseconds, up to a poll interval. */
const RESCUE_DELAY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
/** GetTask polls per rescued send. */
const POLL_BUCKETS = [0, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89];
/** Waiting for a human (INPUT_REQUIRED / AUTH_REQUIRED): seconds to hours. */
const INTERRUPTED_BUCKETS = [0.1, 0.5, 1, 5, 15, 30, 60, 120, 300, 600, 1200, 1800, 3600, 7200, 14400];

export const METRICS = {
  buildInfo: {
    name: 'a2a_gateway_build_info',
    help: 'Always 1: the running gateway version (package.json) and Node.js version, as labels.',
    labelNames: ['version', 'node_version'],
  },
  requests: {
    name: 'a2a_requests_total',
    help: 'Finished exchanges through the gateway, by agent, A2A operation, binding, protocol version, result kind and final task state.',
    labelNames: ['agent', 'method', 'binding', 'version', 'kind', 'state'],
  },
  requestDuration: {
    name: 'a2a_request_duration_seconds',
    help: 'Time from request start until the response body ended, aborted or errored (a stream counts until it closes).',
    labelNames: ['agent', 'method', 'kind'],
    buckets: REQUEST_BUCKETS,
  },
  streamEvents: {
    name: 'a2a_stream_events_total',
    help: 'Server-sent events relayed to clients, by event kind.',
    labelNames: ['agent', 'method', 'event'],
  },
  streamFirstEvent: {
    name: 'a2a_stream_first_event_seconds',
    help: 'Time from request start to the first event of a stream.',
    labelNames: ['agent', 'method'],
    buckets: FIRST_EVENT_BUCKETS,
  },
  taskDuration: {
    name: 'a2a_task_duration_seconds',
    help: 'Task lifetime from first seen by the gateway to its terminal state, across calls.',
    labelNames: ['agent', 'state'],
    buckets: TASK_BUCKETS,
  },
  taskInterrupted: {
    name: 'a2a_task_interrupted_seconds',
    help: 'Time a task spent in an interrupted state (INPUT_REQUIRED, AUTH_REQUIRED) before leaving it.',
    labelNames: ['agent', 'state'],
    buckets: INTERRUPTED_BUCKETS,
  },
  tasks: {
    name: 'a2a_tasks',
    help: 'Tasks the gateway currently tracks, by their latest known state.',
    labelNames: ['agent', 'state'],
  },
  tasksUnobserved: {
    name: 'a2a_tasks_unobserved',
    help: 'Unfinished tracked tasks no answer has shown for tasks.unobservedAfter: their state is only the last one seen.',
    labelNames: ['agent', 'state'],
  },
  taskOldest: {
    name: 'a2a_task_oldest_state_age_seconds',
    help: 'How long the longest-waiting unfinished task whose state was observed within tasks.unobservedAfter has been in it (0 when none).',
    labelNames: ['agent', 'state'],
  },
  findings: {
    name: 'a2a_findings_total',
    help: 'Protocol findings (conformance observations) in exchanges, by rule.',
    labelNames: ['agent', 'rule'],
  },
  upstreamErrors: {
    name: 'a2a_upstream_errors_total',
    help: 'Exchanges that failed between the gateway and the agent, by gateway error reason.',
    labelNames: ['agent', 'reason'],
  },
  rejections: {
    name: 'a2a_rejections_total',
    help: 'Requests the gateway refused before or instead of forwarding them (limits, invalid targets or heads, no free connection), by reason.',
    labelNames: ['agent', 'reason'],
  },
  clientAborts: {
    name: 'a2a_client_aborts_total',
    help: 'Exchanges the client abandoned before the response body ended.',
    labelNames: ['agent', 'method'],
  },
  authDenied: {
    name: 'a2a_auth_denied_total',
    help: "Calls access control refused, by reason: a failed authentication, the agent's access rules (forbidden), or another caller's task (not-owner). The caller is never a label.",
    labelNames: ['agent', 'reason'],
  },
  rateLimited: {
    name: 'a2a_rate_limited_total',
    help: "Calls refused because the caller's rate limit was used up (429).",
    labelNames: ['agent'],
  },
  pushRefused: {
    name: 'a2a_push_refused_total',
    help: 'Push-notification webhooks the gateway refused, by the rule that refused them.',
    labelNames: ['agent', 'rule'],
  },
  stateStoreUp: {
    name: 'a2a_state_store_up',
    help: 'Whether the shared state store (state.store: redis) is connected: 1 up, 0 down; always 1 for the in-memory store.',
    labelNames: [],
  },
  agentCardUp: {
    name: 'a2a_agent_card_up',
    help: "Whether the agent's card could be had at its last fetch: 1 available, 0 pending or unavailable (readiness waits only for agents with required: true).",
    labelNames: ['agent'],
  },
  stateStoreErrors: {
    name: 'a2a_state_store_errors_total',
    help: 'State store operations that failed (write: a task-store write dropped; read: an owner or story lookup; census: the task gauges).',
    labelNames: ['operation'],
  },
  rescues: {
    name: 'a2a_timeout_rescues_total',
    help: 'Blocking SendMessage calls handled by the timeout rescue, by outcome (settled, deadline, message, error, client-gone, agent-blocked).',
    labelNames: ['agent', 'outcome'],
  },
  rescueAnswerDelay: {
    name: 'a2a_timeout_rescue_answer_delay_seconds',
    help: 'Timeout rescue: time from the gateway seeing the task settle to the client having its answer.',
    labelNames: ['agent', 'strategy'],
    buckets: RESCUE_DELAY_BUCKETS,
  },
  rescuePolls: {
    name: 'a2a_timeout_rescue_polls',
    help: 'Timeout rescue: GetTask polls made for one rescued send.',
    labelNames: ['agent', 'strategy'],
    buckets: POLL_BUCKETS,
  },
  idempotentSends: {
    name: 'a2a_idempotent_sends_total',
    help: 'SendMessage calls to agents with idempotency on, by outcome (first, replayed, waited, refused, unavailable).',
    labelNames: ['agent', 'outcome'],
  },
  translations: {
    name: 'a2a_translations_total',
    help: "Calls translated between A2A versions (docs/translation.md), by the caller's and the agent's version and outcome: translated, refused (the call had no counterpart), answer-failed (the answer had none).",
    labelNames: ['agent', 'caller_version', 'agent_version', 'outcome'],
  },
  taskConfirmations: {
    name: 'a2a_task_confirmations_total',
    help: 'GetTasks the gateway sent itself to confirm tasks nobody asked about (agents.{name}.tasks.confirm), by outcome: unchanged, changed, not_found, failed.',
    labelNames: ['agent', 'outcome'],
  },
  cardSignatureChecks: {
    name: 'a2a_card_signature_checks_total',
    help: 'Agent card signature checks (docs/security.md "Signed agent cards"), once per card fetched from an agent with keys configured, by result: valid, invalid, unsigned.',
    labelNames: ['agent', 'result'],
  },
  replicaHealthy: {
    name: 'a2a_replica_healthy',
    help: 'Whether the replica takes new conversations by its health (1 healthy; 0 unhealthy or ejected). Per gateway process; across cluster workers the minimum.',
    labelNames: ['agent', 'replica'],
  },
  replicaState: {
    name: 'a2a_replica_state',
    help: 'The replica health state this gateway process sees: 1 for its state (healthy, unhealthy, ejected), 0 for the others. Across cluster workers the maximum (1: some worker sees it so).',
    labelNames: ['agent', 'replica', 'state'],
  },
  replicaOutstanding: {
    name: 'a2a_replica_outstanding',
    help: 'Calls sent to the replica and not yet finished (the balancer picks the fewest).',
    labelNames: ['agent', 'replica'],
  },
  replicaEjections: {
    name: 'a2a_replica_ejections_total',
    help: 'Times the replica was ejected by passive outlier detection (consecutive live-call failures).',
    labelNames: ['agent', 'replica'],
  },
  replicaCheckFailures: {
    name: 'a2a_replica_health_check_failures_total',
    help: 'Active health checks of the replica that failed (not 2xx, no connection, or past the timeout).',
    labelNames: ['agent', 'replica'],
  },
  streamResumes: {
    name: 'a2a_stream_resumes_total',
    help: 'Streams resumed with Last-Event-ID (agents with resume on), by outcome: replayed (from the window, then live), beyond_window (RESUME_WINDOW_EXCEEDED), unavailable (the window store could not be read).',
    labelNames: ['agent', 'outcome'],
  },
  resumeWindowWriteFailures: {
    name: 'a2a_resume_window_write_failures_total',
    help: 'Stream resume: replay-window writes that failed or were dropped (the store down or its queue full); the stream itself goes on.',
    labelNames: [],
  },
  configReloads: {
    name: 'a2a_config_reloads_total',
    help: 'Configuration reloads (SIGHUP, POST /admin/reload), by result: success (applied) or failure (invalid config: the old one stays).',
    labelNames: ['result'],
  },
  configLastReloadSuccess: {
    name: 'a2a_config_last_reload_success',
    help: 'Whether the last configuration reload was applied (1; also before any reload) or refused (0: the gateway serves the previous config).',
    labelNames: [],
  },
} as const;

/** `state` of a2a_replica_state (src/transport/replica-health.ts HealthState). */
export const REPLICA_STATES = ['healthy', 'unhealthy', 'ejected'] as const;

/** `result` of a2a_config_reloads_total. */
export const RELOAD_RESULTS = ['success', 'failure'] as const;
