/**
 * The closed set of errors the gateway itself produces (principle 9). A2A errors returned by an
 * agent are not gateway errors: they are forwarded untouched and decoded as facts.
 */
export const GATEWAY_ERROR_REASONS = [
  'AGENT_NOT_FOUND',
  /** A tenant (spec §5.7) the agent's `tenants` does not list. */
  'TENANT_NOT_FOUND',
  'UPSTREAM_UNREACHABLE',
  'UPSTREAM_TIMEOUT',
  'UPSTREAM_RESET',
  /** The agent answered, but not in a way the gateway can use (e.g. a task GetTask cannot find). */
  'UPSTREAM_INVALID',
  'REQUEST_INVALID',
  'METHOD_NOT_ALLOWED',
  /** A request body with a Content-Encoding (gzip, deflate, …): the gateway checks only bodies it can read. */
  'UNSUPPORTED_MEDIA_TYPE',
  'BODY_TOO_LARGE',
  'HEADERS_TOO_LARGE',
  'REQUEST_TIMEOUT',
  /** Every connection to the agent stayed busy past `timeouts.queue`. */
  'AGENT_BUSY',
  /** The caller already has its share of the agent's calls in flight (`agents.{name}.limits.callsPerClient`). */
  'CLIENT_SHARE_EXCEEDED',
  /** No credentials, or ones the gateway does not accept (`auth`). */
  'UNAUTHENTICATED',
  /** An authenticated caller that the agent's `access` rules do not admit. */
  'PERMISSION_DENIED',
  /** The caller's `rateLimit` is used up for now (Retry-After says when to come back). */
  'RATE_LIMITED',
  /** The shared task store (Redis) cannot answer an ownership check and `state.redis.failClosed` is on. */
  'STATE_UNAVAILABLE',
  /** Every replica of the agent is drained: no new conversation can start (docs/fleet.md "Draining"). */
  'AGENT_DRAINED',
  /** An `Idempotency-Key` (or messageId) sent again with another message (docs/fleet.md). */
  'IDEMPOTENCY_KEY_REUSED',
  /** A duplicate send waited `idempotency.wait` and the first still has no outcome. */
  'IDEMPOTENCY_IN_PROGRESS',
  /** A `Last-Event-ID` the replay window no longer (or never) holds (docs/fleet.md "Stream resume"). */
  'RESUME_WINDOW_EXCEEDED',
  'SHUTTING_DOWN',
  /** The client left before its answer was complete. Recorded, never sent: nobody is left to read it. */
  'CLIENT_GONE',
  'INTERNAL',
] as const;
export type GatewayErrorReason = (typeof GATEWAY_ERROR_REASONS)[number];

/** The reasons that mean the agent could not be reached or failed mid-answer. */
export const UPSTREAM_REASONS = [
  'UPSTREAM_UNREACHABLE',
  'UPSTREAM_TIMEOUT',
  'UPSTREAM_RESET',
  'UPSTREAM_INVALID',
] as const satisfies readonly GatewayErrorReason[];

/** The reasons that mean the gateway refused the client's request (limits, hostile input). */
export const REJECTION_REASONS = [
  'REQUEST_INVALID',
  'METHOD_NOT_ALLOWED',
  'UNSUPPORTED_MEDIA_TYPE',
  'BODY_TOO_LARGE',
  'HEADERS_TOO_LARGE',
  'REQUEST_TIMEOUT',
  'AGENT_BUSY',
  'CLIENT_SHARE_EXCEEDED',
] as const satisfies readonly GatewayErrorReason[];

/** HTTP status and the google.rpc status name used in A2A REST error bodies (spec §11.6). */
const STATUS: Record<GatewayErrorReason, readonly [number, string]> = {
  AGENT_NOT_FOUND: [404, 'NOT_FOUND'],
  TENANT_NOT_FOUND: [404, 'NOT_FOUND'],
  UPSTREAM_UNREACHABLE: [502, 'UNAVAILABLE'],
  UPSTREAM_TIMEOUT: [504, 'DEADLINE_EXCEEDED'],
  UPSTREAM_RESET: [502, 'UNAVAILABLE'],
  UPSTREAM_INVALID: [502, 'INTERNAL'],
  REQUEST_INVALID: [400, 'INVALID_ARGUMENT'],
  METHOD_NOT_ALLOWED: [405, 'UNIMPLEMENTED'],
  UNSUPPORTED_MEDIA_TYPE: [415, 'INVALID_ARGUMENT'],
  BODY_TOO_LARGE: [413, 'RESOURCE_EXHAUSTED'],
  HEADERS_TOO_LARGE: [431, 'RESOURCE_EXHAUSTED'],
  REQUEST_TIMEOUT: [408, 'DEADLINE_EXCEEDED'],
  AGENT_BUSY: [503, 'UNAVAILABLE'],
  // The caller's own excess, as a rate limit: 429 (gRPC RESOURCE_EXHAUSTED), not the 503 of a busy agent.
  CLIENT_SHARE_EXCEEDED: [429, 'RESOURCE_EXHAUSTED'],
  UNAUTHENTICATED: [401, 'UNAUTHENTICATED'],
  PERMISSION_DENIED: [403, 'PERMISSION_DENIED'],
  RATE_LIMITED: [429, 'RESOURCE_EXHAUSTED'],
  STATE_UNAVAILABLE: [503, 'UNAVAILABLE'],
  AGENT_DRAINED: [503, 'UNAVAILABLE'],
  // As draft-ietf-httpapi-idempotency-key-header §2.7: 422 for a key reused with another
  // payload, 409 while the first request is still being processed.
  IDEMPOTENCY_KEY_REUSED: [422, 'FAILED_PRECONDITION'],
  IDEMPOTENCY_IN_PROGRESS: [409, 'ABORTED'],
  // The events asked for are gone for good (410), as a gRPC OUT_OF_RANGE read past what is kept.
  RESUME_WINDOW_EXCEEDED: [410, 'OUT_OF_RANGE'],
  SHUTTING_DOWN: [503, 'UNAVAILABLE'],
  // nginx's 499 "client closed request", as gRPC's CANCELLED; only records and logs show it.
  CLIENT_GONE: [499, 'CANCELLED'],
  INTERNAL: [500, 'INTERNAL'],
};

export class GatewayError extends Error {
  readonly status: number;
  readonly rpcStatus: string;
  readonly headers: Readonly<Record<string, string>>;
  constructor(
    readonly reason: GatewayErrorReason,
    message: string,
    readonly metadata: Record<string, string> = {},
    options?: {
      cause?: unknown;
      /** Response headers the answer needs (e.g. `Allow` with a 405). */ headers?: Record<string, string>;
    },
  ) {
    super(message, options);
    this.headers = options?.headers ?? {};
    this.name = 'GatewayError';
    [this.status, this.rpcStatus] = STATUS[reason];
  }
}

const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'ECONNABORTED',
]);
const TIMEOUT_CODES = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ETIMEDOUT',
]);

function errorCode(err: unknown): string | undefined {
  let cur: unknown = err;
  for (let depth = 0; cur && depth < 4; depth++) {
    const code = (cur as { code?: unknown }).code;
    if (typeof code === 'string' && code !== 'UND_ERR_SOCKET') return code;
    if (typeof code === 'string') return (cur as { cause?: { code?: string } }).cause?.code ?? code;
    cur = (cur as { cause?: unknown }).cause;
  }
  return undefined;
}

/** The one place transport failures become gateway errors. */
export function upstreamFailure(err: unknown, agent: string): GatewayError {
  if (err instanceof GatewayError) return err;
  const code = errorCode(err) ?? 'UNKNOWN';
  const meta = { agent, cause: code };
  if (TIMEOUT_CODES.has(code)) {
    return new GatewayError('UPSTREAM_TIMEOUT', `agent "${agent}" did not answer in time (${code})`, meta, {
      cause: err,
    });
  }
  if (UNREACHABLE_CODES.has(code)) {
    return new GatewayError('UPSTREAM_UNREACHABLE', `agent "${agent}" cannot be reached (${code})`, meta, {
      cause: err,
    });
  }
  return new GatewayError('UPSTREAM_RESET', `connection to agent "${agent}" failed (${code})`, meta, { cause: err });
}
