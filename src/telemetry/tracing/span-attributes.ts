/**
 * Every span, event and attribute name the gateway writes, in one file (principle 10). Stable
 * OpenTelemetry names come from the semantic-conventions package; the A2A and gen_ai ones are
 * still drafts (semantic-conventions-genai, model/a2a), so they are pinned here as strings, as
 * opentelemetry-js-contrib does with unstable names. Our own additions live under `a2a.gateway.*`.
 */
export {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  ATTR_SERVICE_NAME,
  ATTR_SERVICE_VERSION,
  ATTR_URL_FULL,
  ATTR_URL_PATH,
} from '@opentelemetry/semantic-conventions';

// Draft A2A vocabulary.
export const ATTR_A2A_METHOD_NAME = 'a2a.method.name';
export const ATTR_A2A_PROTOCOL_VERSION = 'a2a.protocol.version';
export const ATTR_A2A_TASK_ID = 'a2a.task.id';
export const ATTR_A2A_TASK_STATE = 'a2a.task.state';
export const ATTR_A2A_MESSAGE_ID = 'a2a.message.id';
/** The tenant the call named (spec §5.7); not in the draft vocabulary yet, named after its field. */
export const ATTR_A2A_TENANT = 'a2a.tenant';
export const ATTR_GEN_AI_CONVERSATION_ID = 'gen_ai.conversation.id';
export const ATTR_GEN_AI_AGENT_NAME = 'gen_ai.agent.name';
/**
 * Who called (the API key's client name or the JWT's principal claim). Only in the package's
 * incubating entry point (`ATTR_ENDUSER_ID`, experimental, flagged as personal data), so pinned
 * here like the drafts above.
 */
export const ATTR_ENDUSER_ID = 'enduser.id';

// The gateway's own.
/** `message` or `task`: the shape the agent answered with (also `error`, `other`). */
export const ATTR_GATEWAY_KIND = 'a2a.gateway.kind';
export const ATTR_GATEWAY_BINDING = 'a2a.gateway.binding';
export const ATTR_GATEWAY_BLOCKING = 'a2a.gateway.blocking';
export const ATTR_GATEWAY_OUTCOME = 'a2a.gateway.outcome';
/** Inspection hit its byte cap; the facts on the span are incomplete. */
export const ATTR_GATEWAY_PARTIAL = 'a2a.gateway.partial';
/** Rule ids of the exchange's findings (string array). */
export const ATTR_GATEWAY_FINDINGS = 'a2a.gateway.findings';
/** JSON-RPC code or REST ErrorInfo reason of an A2A error the agent answered with. */
export const ATTR_GATEWAY_A2A_ERROR = 'a2a.gateway.a2a_error';
/** Why access control refused the call (an ACCESS_DENIALS member). */
export const ATTR_GATEWAY_ACCESS_DENIED = 'a2a.gateway.access.denied';
/** The caller's rate limit refused the call. */
export const ATTR_GATEWAY_RATE_LIMITED = 'a2a.gateway.access.rate_limited';
/** Why the push-notification webhook was refused (a PUSH_REFUSALS member). */
export const ATTR_GATEWAY_PUSH_REFUSED = 'a2a.gateway.access.push_refused';
export const ATTR_GATEWAY_STREAM_EVENTS = 'a2a.gateway.stream.events';
/** SSE comment lines the agent sent. */
export const ATTR_GATEWAY_STREAM_AGENT_KEEPALIVES = 'a2a.gateway.stream.agent_keepalives';
/** Keepalive comments the gateway wrote in quiet gaps (sse.keepalive). */
export const ATTR_GATEWAY_STREAM_GATEWAY_KEEPALIVES = 'a2a.gateway.stream.gateway_keepalives';
/** Span events not recorded because the per-span cap was reached. */
export const ATTR_GATEWAY_EVENTS_DROPPED = 'a2a.gateway.span_events_dropped';
/** On a stream event: its kind (task, message, statusUpdate, artifactUpdate, error). */
export const ATTR_GATEWAY_STREAM_EVENT = 'a2a.gateway.stream.event';
export const ATTR_GATEWAY_FINDING_RULE = 'a2a.gateway.finding.rule';
export const ATTR_GATEWAY_FINDING_MESSAGE = 'a2a.gateway.finding.message';

// Span events.
export const EVENT_STREAM_EVENT = 'a2a.stream.event';
export const EVENT_TASK_STATE = 'a2a.task.state_change';
export const EVENT_FINDING = 'a2a.gateway.finding';

/** Instrumentation scope name. */
export const TRACER_NAME = 'a2a-gateway';
