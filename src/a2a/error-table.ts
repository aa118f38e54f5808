/**
 * The A2A error table of the current spec, v1.0.1 §5.4 (wire-reference §4.1, which
 * test/errors/error-table.test.ts reads to check this one): per error its JSON-RPC code, gRPC
 * status, HTTP status and ErrorInfo reason. The one source for every answer the gateway gives in
 * the protocol's own errors (src/errors/a2a-error.ts, src/errors/grpc-answer.ts). Pure.
 *
 * The standard JSON-RPC errors have no row in §5.4; their REST and gRPC mappings are the
 * validation / not-found / system categories of §3.3.2 as a2a-python maps them (wire-reference
 * §4.1, last paragraph). `http03` is the HTTP status an a2a-js 0.3 REST agent answers the code with
 * (`LEGACY_CODE_TO_HTTP_STATUS`, @a2a-js/sdk 1.3.0 src/compat/v0_3/server/transports/rest), the
 * shape 0.3 callers get (0.3 left REST errors unspecified, wire-reference §4.2).
 */

export interface A2AErrorRow {
  readonly jsonrpc: number;
  /** google.rpc status name: gRPC status, and REST `error.status` (§11.6). */
  readonly grpc: string;
  readonly http: number;
  /** UPPER_SNAKE_CASE of the name minus `Error` (§10.6, §11.6); none for the JSON-RPC standard errors. */
  readonly reason?: string;
  /** 0.3 has the code (0.3 §8.2) but not always the row: absent = a 1.0-only error. */
  readonly http03?: number;
}

export const A2A_ERROR_TABLE = {
  TaskNotFoundError: { jsonrpc: -32001, grpc: 'NOT_FOUND', http: 404, reason: 'TASK_NOT_FOUND', http03: 404 },
  TaskNotCancelableError: {
    jsonrpc: -32002,
    grpc: 'FAILED_PRECONDITION',
    http: 400,
    reason: 'TASK_NOT_CANCELABLE',
    http03: 400,
  },
  PushNotificationNotSupportedError: {
    jsonrpc: -32003,
    grpc: 'FAILED_PRECONDITION',
    http: 400,
    reason: 'PUSH_NOTIFICATION_NOT_SUPPORTED',
    http03: 400,
  },
  UnsupportedOperationError: {
    jsonrpc: -32004,
    grpc: 'FAILED_PRECONDITION',
    http: 400,
    reason: 'UNSUPPORTED_OPERATION',
    http03: 400,
  },
  ContentTypeNotSupportedError: {
    jsonrpc: -32005,
    grpc: 'INVALID_ARGUMENT',
    http: 400,
    reason: 'CONTENT_TYPE_NOT_SUPPORTED',
    http03: 400,
  },
  InvalidAgentResponseError: {
    jsonrpc: -32006,
    grpc: 'INTERNAL',
    http: 500,
    reason: 'INVALID_AGENT_RESPONSE',
    http03: 500,
  },
  ExtendedAgentCardNotConfiguredError: {
    jsonrpc: -32007,
    grpc: 'FAILED_PRECONDITION',
    http: 400,
    reason: 'EXTENDED_AGENT_CARD_NOT_CONFIGURED',
    http03: 400,
  },
  ExtensionSupportRequiredError: {
    jsonrpc: -32008,
    grpc: 'FAILED_PRECONDITION',
    http: 400,
    reason: 'EXTENSION_SUPPORT_REQUIRED',
  },
  VersionNotSupportedError: {
    jsonrpc: -32009,
    grpc: 'FAILED_PRECONDITION',
    http: 400,
    reason: 'VERSION_NOT_SUPPORTED',
  },
  JSONParseError: { jsonrpc: -32700, grpc: 'INVALID_ARGUMENT', http: 400, http03: 400 },
  InvalidRequestError: { jsonrpc: -32600, grpc: 'INVALID_ARGUMENT', http: 400, http03: 400 },
  MethodNotFoundError: { jsonrpc: -32601, grpc: 'NOT_FOUND', http: 404, http03: 501 },
  InvalidParamsError: { jsonrpc: -32602, grpc: 'INVALID_ARGUMENT', http: 400, http03: 400 },
  InternalError: { jsonrpc: -32603, grpc: 'INTERNAL', http: 500, http03: 500 },
} as const satisfies Record<string, A2AErrorRow>;

export type A2AErrorName = keyof typeof A2A_ERROR_TABLE;

/** The domain of A2A's own ErrorInfo (§10.6, §11.6). */
export const A2A_ERROR_DOMAIN = 'a2a-protocol.org';
