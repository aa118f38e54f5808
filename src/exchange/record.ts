/**
 * The exchange record: one client request through the gateway and everything learned about it.
 * Stages write facts here; observers read them (docs/ARCHITECTURE.md, "The exchange record").
 * Data only: the proxy, the timeout rescue, inspection and telemetry all import it, and it
 * imports none of them. The closed sets are `as const` arrays so label sets derive from them
 * (telemetry/metrics/labels.ts) and a new member cannot silently become `other`.
 */
import type { Binding, Operation, ProtocolVersion } from '../a2a/operations.js';
import type { TaskState } from '../a2a/task-state.js';
import type { Finding } from '../a2a/findings.js';

export const EXCHANGE_OUTCOMES = ['complete', 'client-gone', 'upstream-error', 'gateway-error'] as const;
export type ExchangeOutcome = (typeof EXCHANGE_OUTCOMES)[number];

/** The shape an exchange took: a direct Message, a Task, an A2A/JSON-RPC error, or anything else. */
export const EXCHANGE_KINDS = ['message', 'task', 'error', 'other'] as const;
export type ExchangeKind = (typeof EXCHANGE_KINDS)[number];

export const STREAM_EVENT_KINDS = ['task', 'message', 'statusUpdate', 'artifactUpdate', 'error'] as const;
export type StreamEventKind = (typeof STREAM_EVENT_KINDS)[number];

/** What inspection learned about the A2A exchange (filled by the inspector when the body ends). */
export interface A2AFacts {
  binding: Binding;
  version: ProtocolVersion;
  operation: Operation;
  kind: ExchangeKind;
  taskId?: string;
  contextId?: string;
  messageId?: string;
  /** The tenant the call named (spec §5.7): its `tenant` field, or the REST `/{tenant}` segment. */
  tenant?: string;
  /** Final task state, normalised to the 1.0 names whatever the wire said. */
  state?: TaskState;
  /** The send was blocking (1.0 returnImmediately false/absent; 0.3 blocking true/absent). */
  blocking?: boolean;
  /** An A2A or JSON-RPC error answered by the agent (JSON-RPC code, REST or gRPC ErrorInfo reason, gRPC status code). */
  error?: { code?: number; reason?: string; message?: string; grpcStatus?: number };
  /** For SSE responses. */
  stream?: {
    events: Record<StreamEventKind, number>;
    /** Milliseconds from the exchange's start to the first event. */
    firstEventMs?: number;
    /** SSE comment lines the agent sent (passed through as they were); the gateway's own are `gatewayKeepalives`. */
    agentKeepalives: number;
  };
  /**
   * When the client was shown each task state and artifact update, epoch ms (the console's task
   * timeline, src/console/timeline.ts): a stream's state changes and artifact updates as their
   * chunks went by, a unary answer's one state at its end. At most 32 of each.
   */
  marks?: TaskMarks;
  /** Inspection hit its byte cap before it found everything it looks for. */
  partial: boolean;
}

export interface TaskMarks {
  states: { state: TaskState; at: number }[];
  artifactsAt: number[];
}

export type { Finding };

/** How the timeout rescue waits: `auto` in the config resolves to one of these per agent. */
export const RESCUE_STRATEGIES = ['stream', 'subscribe', 'poll'] as const;
export type RescueStrategy = (typeof RESCUE_STRATEGIES)[number];

export const RESCUE_OUTCOMES = [
  'settled',
  'deadline',
  'message',
  'error',
  'client-gone',
  'agent-blocked',
  /** Answered 503 SHUTTING_DOWN (with the task id when known) at the end of the shutdown grace. */
  'shutdown',
] as const;
export type RescueOutcome = (typeof RESCUE_OUTCOMES)[number];

/** What the timeout rescue did, on the exchange record (metrics and the access log read it). */
export interface RescueFacts {
  strategy: RescueStrategy;
  outcome?: RescueOutcome;
  /** The task the client's message created or continued — kept even if the client left. */
  taskId?: string;
  /** Upstream GetTask polls made while waiting. */
  polls: number;
  /** Of those, long-polls (draft 1.1 `currentGeneration`, wire-reference §7.4): the agent keeps a task generation. */
  longPolls?: number;
  /** From the moment the gateway saw the task settle to the client's answer. */
  settleToAnswerMs?: number;
}

/**
 * What the idempotent-sends step did (src/idempotency/): the first send of its key, a duplicate
 * answered with the first's outcome at once (`replayed`) or after waiting for it (`waited`), one
 * refused (its key reused with another body, too long, or the first still pending after `wait`),
 * or the store could not answer (`unavailable`: sent to the agent, or 503 with `failClosed`).
 */
export const IDEMPOTENT_OUTCOMES = ['first', 'replayed', 'waited', 'refused', 'unavailable'] as const;
export type IdempotentOutcome = (typeof IDEMPOTENT_OUTCOMES)[number];

export interface IdempotencyFacts {
  outcome: IdempotentOutcome;
  /** Where the key came from. */
  source: 'idempotency-key' | 'messageId';
}

/**
 * What stream resume did with a call that carried `Last-Event-ID` (src/resume/): the events
 * after it replayed from the window (then the live ones), `continued` with an upstream
 * SubscribeToTask once nobody read the agent's stream any more, or answered RESUME_WINDOW_EXCEEDED
 * (`beyond_window`: older than the window, unknown, or a gap), or the window store could not be
 * read (`unavailable`).
 */
export const RESUME_OUTCOMES = ['replayed', 'continued', 'beyond_window', 'unavailable'] as const;
export type ResumeOutcome = (typeof RESUME_OUTCOMES)[number];

/**
 * Why access control refused a call: the authentication failures (`ambiguous-credentials`: more
 * than one credential header, src/access/authenticate.ts), `forbidden` (the
 * agent's `access` rules), `not-owner` (task ownership: answered as an unknown task),
 * `foreign-page-token` (a ListTasks page token this gateway did not issue to the caller for the
 * agent, src/access/page-tokens.ts: answered as InvalidParams).
 */
export const ACCESS_DENIALS = [
  'missing',
  'ambiguous-credentials',
  'invalid-key',
  'expired',
  'invalid-audience',
  'invalid-issuer',
  'invalid-signature',
  'malformed',
  'jwks-unavailable',
  'no-principal',
  'forbidden',
  'not-owner',
  'foreign-page-token',
] as const;
export type AccessDenial = (typeof ACCESS_DENIALS)[number];

/** Why a push-notification webhook was refused (src/access/push-guard.ts). */
export const PUSH_REFUSALS = [
  'push-url-invalid',
  'push-url-scheme',
  'push-url-address',
  'push-url-resolves-private',
  'push-url-unresolvable',
  'push-config-unread',
] as const;
export type PushRefusal = (typeof PUSH_REFUSALS)[number];

/** What access control decided about the exchange (none when `auth` is off and nothing was refused). */
export interface AccessFacts {
  /** Who called (API key client name, or the JWT's principal claim); never a metric label. */
  principal?: string;
  denied?: AccessDenial;
  rateLimited?: boolean;
  pushRefused?: PushRefusal;
}

export interface ExchangeRecord {
  /** Unique within this process (exchange-id.ts): the console names exchanges by it. */
  id: string;
  /** The gateway's own trace id for this exchange, when tracing is on (src/telemetry/tracing/tracing.ts). */
  traceId?: string;
  agent: string;
  httpMethod: string;
  /** Path below /agents/{name} (routed by host: the whole target), with the query string. */
  path: string;
  startedAt: number;
  /** HTTP status the client received (0 if none was sent). */
  status: number;
  bytesIn: number;
  bytesOut: number;
  /**
   * SSE keepalive comments the gateway itself wrote into the response in quiet gaps
   * (`sse.keepalive`, src/bindings/http/sse-keepalive.ts); the agent's own are `a2a.stream.agentKeepalives`.
   */
  gatewayKeepalives: number;
  durationMs: number;
  outcome: ExchangeOutcome;
  /** A gateway-side failure (GatewayError reason), distinct from an A2A error the agent sent. */
  error?: { reason: string; message: string };
  /** Undefined for requests inspection could not classify at all (e.g. inspection off). */
  a2a?: A2AFacts;
  findings: Finding[];
  /** Set when the timeout rescue handled this exchange. */
  rescue?: RescueFacts;
  /** Set when access control took part. */
  access?: AccessFacts;
  /** Set when the agent has `idempotency` on and the call is a covered send. */
  idempotency?: IdempotencyFacts;
  /** Set when the call resumed a stream (`Last-Event-ID` to an agent with `resume`). */
  resume?: ResumeOutcome;
  /** The replica the call went to (step 3c), for agents configured with `upstreams`. */
  replica?: string;
  /** Set when the call was translated between A2A versions (src/translate/): both sides' versions. */
  translation?: TranslationFacts;
}

/** A translated call (docs/translation.md): the caller's version, the agent's, and how it went. */
export interface TranslationFacts {
  readonly caller: ProtocolVersion;
  readonly agent: ProtocolVersion;
  /** `refused`: the call could not be translated (answered with an error, never sent). */
  outcome: 'translated' | 'refused' | 'answer-failed';
}
