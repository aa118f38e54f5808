/**
 * gRPC method paths (`/{package}.{Service}/{Rpc}`, "gRPC over HTTP/2" `:path`) → operation and
 * version. 1.0: package `lf.a2a.v1` (docs/proto/a2a-v1.0.0.proto service A2AService,
 * wire-reference §1.3); 0.3: package `a2a.v1` with its own rpc names
 * (docs/proto/a2a-v0.3.0.proto service A2AService, wire-reference §6.2).
 */
import type { Operation, ProtocolVersion } from '../operations.js';

export interface GrpcMethod {
  readonly operation: Operation;
  readonly version: ProtocolVersion;
}

export const GRPC_SERVICE_V1 = '/lf.a2a.v1.A2AService/';
export const GRPC_SERVICE_V03 = '/a2a.v1.A2AService/';

const V1_RPCS: ReadonlyArray<readonly [rpc: string, operation: Operation]> = [
  ['SendMessage', 'SendMessage'],
  ['SendStreamingMessage', 'SendStreamingMessage'],
  ['GetTask', 'GetTask'],
  ['ListTasks', 'ListTasks'],
  ['CancelTask', 'CancelTask'],
  ['SubscribeToTask', 'SubscribeToTask'],
  ['CreateTaskPushNotificationConfig', 'CreateTaskPushNotificationConfig'],
  ['GetTaskPushNotificationConfig', 'GetTaskPushNotificationConfig'],
  ['ListTaskPushNotificationConfigs', 'ListTaskPushNotificationConfigs'],
  ['GetExtendedAgentCard', 'GetExtendedAgentCard'],
  ['DeleteTaskPushNotificationConfig', 'DeleteTaskPushNotificationConfig'],
];

const V03_RPCS: ReadonlyArray<readonly [rpc: string, operation: Operation]> = [
  ['SendMessage', 'SendMessage'],
  ['SendStreamingMessage', 'SendStreamingMessage'],
  ['GetTask', 'GetTask'],
  ['CancelTask', 'CancelTask'],
  ['TaskSubscription', 'SubscribeToTask'],
  ['CreateTaskPushNotificationConfig', 'CreateTaskPushNotificationConfig'],
  ['GetTaskPushNotificationConfig', 'GetTaskPushNotificationConfig'],
  ['ListTaskPushNotificationConfig', 'ListTaskPushNotificationConfigs'],
  // 0.3 returned the (extended) card over gRPC; 1.0 renamed it (wire-reference §6.2).
  ['GetAgentCard', 'GetExtendedAgentCard'],
  ['DeleteTaskPushNotificationConfig', 'DeleteTaskPushNotificationConfig'],
];

const METHODS: ReadonlyMap<string, GrpcMethod> = new Map<string, GrpcMethod>([
  ...V1_RPCS.map(([rpc, operation]) => [GRPC_SERVICE_V1 + rpc, { operation, version: '1.0' }] as const),
  ...V03_RPCS.map(([rpc, operation]) => [GRPC_SERVICE_V03 + rpc, { operation, version: '0.3' }] as const),
]);

/** The operation of a gRPC `:path`; `undefined` for a path no version defines. */
export function grpcMethod(path: string): GrpcMethod | undefined {
  return METHODS.get(path);
}

/** The path of `operation` in `version`; `undefined` where the version has none (0.3 ListTasks). */
export function grpcPath(operation: Operation, version: ProtocolVersion): string | undefined {
  const [service, rpcs] = version === '1.0' ? [GRPC_SERVICE_V1, V1_RPCS] : [GRPC_SERVICE_V03, V03_RPCS];
  const rpc = rpcs.find(([, op]) => op === operation)?.[0];
  return rpc === undefined ? undefined : service + rpc;
}
