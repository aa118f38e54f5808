/**
 * The closed set of A2A operations the gateway recognises, and the tables that map every wire
 * spelling onto them. Names are the 1.0 canonical ones (wire-reference §1, spec §5.3).
 *
 * Pure: no I/O. Every `switch` over `Operation` ends in an exhaustiveness check so that adding an
 * operation breaks the build where it is not handled (principle 4).
 */

export const BINDINGS = ['jsonrpc', 'rest', 'grpc'] as const;
export type Binding = (typeof BINDINGS)[number];
/** The two bindings whose payloads are JSON over HTTP/1.1 (the JSON decoders, errors, rewrites). */
export type JsonBinding = Exclude<Binding, 'grpc'>;

export const PROTOCOL_VERSIONS = ['1.0', '0.3'] as const;
export type ProtocolVersion = (typeof PROTOCOL_VERSIONS)[number];

export const OPERATIONS = [
  'SendMessage',
  'SendStreamingMessage',
  'GetTask',
  'ListTasks',
  'CancelTask',
  'SubscribeToTask',
  'CreateTaskPushNotificationConfig',
  'GetTaskPushNotificationConfig',
  'ListTaskPushNotificationConfigs',
  'DeleteTaskPushNotificationConfig',
  'GetExtendedAgentCard',
  /** The public card at the well-known path (§8.2); not an A2A operation but routed like one. */
  'AgentCard',
  'unknown',
] as const;

export type Operation = (typeof OPERATIONS)[number];

/** JSON-RPC `method` → operation, for 1.0 (§9, wire-reference §1) and 0.3 (wire-reference §6.2). */
const JSONRPC_METHODS: ReadonlyMap<string, { operation: Operation; version: ProtocolVersion }> = new Map([
  ['SendMessage', { operation: 'SendMessage', version: '1.0' }],
  ['SendStreamingMessage', { operation: 'SendStreamingMessage', version: '1.0' }],
  ['GetTask', { operation: 'GetTask', version: '1.0' }],
  ['ListTasks', { operation: 'ListTasks', version: '1.0' }],
  ['CancelTask', { operation: 'CancelTask', version: '1.0' }],
  ['SubscribeToTask', { operation: 'SubscribeToTask', version: '1.0' }],
  ['CreateTaskPushNotificationConfig', { operation: 'CreateTaskPushNotificationConfig', version: '1.0' }],
  ['GetTaskPushNotificationConfig', { operation: 'GetTaskPushNotificationConfig', version: '1.0' }],
  ['ListTaskPushNotificationConfigs', { operation: 'ListTaskPushNotificationConfigs', version: '1.0' }],
  ['DeleteTaskPushNotificationConfig', { operation: 'DeleteTaskPushNotificationConfig', version: '1.0' }],
  ['GetExtendedAgentCard', { operation: 'GetExtendedAgentCard', version: '1.0' }],
  ['message/send', { operation: 'SendMessage', version: '0.3' }],
  ['message/stream', { operation: 'SendStreamingMessage', version: '0.3' }],
  ['tasks/get', { operation: 'GetTask', version: '0.3' }],
  ['tasks/cancel', { operation: 'CancelTask', version: '0.3' }],
  ['tasks/resubscribe', { operation: 'SubscribeToTask', version: '0.3' }],
  ['tasks/pushNotificationConfig/set', { operation: 'CreateTaskPushNotificationConfig', version: '0.3' }],
  ['tasks/pushNotificationConfig/get', { operation: 'GetTaskPushNotificationConfig', version: '0.3' }],
  ['tasks/pushNotificationConfig/list', { operation: 'ListTaskPushNotificationConfigs', version: '0.3' }],
  ['tasks/pushNotificationConfig/delete', { operation: 'DeleteTaskPushNotificationConfig', version: '0.3' }],
  ['agent/getAuthenticatedExtendedCard', { operation: 'GetExtendedAgentCard', version: '0.3' }],
]);

/** Looks a JSON-RPC method name up; `undefined` for names no version defines. */
export function operationForJsonRpcMethod(
  method: string,
): { operation: Operation; version: ProtocolVersion } | undefined {
  return JSONRPC_METHODS.get(method);
}

/**
 * Operations answered with `text/event-stream` (§3.1.2, §3.1.6; wire-reference §1.1, §1.2).
 * Agents may still answer them with a plain JSON error (capture
 * `v1--edge-rpc-subscribe-unknown-task.http`), so the response decoder goes by Content-Type.
 */
export function isStreamingOperation(op: Operation): boolean {
  switch (op) {
    case 'SendStreamingMessage':
    case 'SubscribeToTask':
      return true;
    case 'SendMessage':
    case 'GetTask':
    case 'ListTasks':
    case 'CancelTask':
    case 'CreateTaskPushNotificationConfig':
    case 'GetTaskPushNotificationConfig':
    case 'ListTaskPushNotificationConfigs':
    case 'DeleteTaskPushNotificationConfig':
    case 'GetExtendedAgentCard':
    case 'AgentCard':
    case 'unknown':
      return false;
    default: {
      const _exhaustive: never = op;
      return _exhaustive;
    }
  }
}

/**
 * What an operation does with tasks, for task ownership (src/access/ownership.ts): acts on one
 * existing task named by its id, sends a message (into a named task, or starting one), or names
 * none. Exhaustive, so a new operation must say which.
 */
export function taskScope(op: Operation): 'one-task' | 'send' | 'none' {
  switch (op) {
    case 'GetTask':
    case 'CancelTask':
    case 'SubscribeToTask':
    case 'CreateTaskPushNotificationConfig':
    case 'GetTaskPushNotificationConfig':
    case 'ListTaskPushNotificationConfigs':
    case 'DeleteTaskPushNotificationConfig':
      return 'one-task';
    case 'SendMessage':
    case 'SendStreamingMessage':
      return 'send';
    case 'ListTasks':
    case 'GetExtendedAgentCard':
    case 'AgentCard':
    case 'unknown':
      return 'none';
    default: {
      const _exhaustive: never = op;
      return _exhaustive;
    }
  }
}
