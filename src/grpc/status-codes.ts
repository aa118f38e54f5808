/**
 * gRPC status codes (grpc/doc/statuscodes.md), by the names GatewayError uses for `rpcStatus`
 * (src/transport/errors.ts), so a gateway refusal maps onto gRPC without a second table.
 */
export const GRPC_STATUS = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  OUT_OF_RANGE: 11,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  DATA_LOSS: 15,
  UNAUTHENTICATED: 16,
} as const;

export type GrpcStatusName = keyof typeof GRPC_STATUS;

export function grpcStatusOf(name: string): number {
  return (GRPC_STATUS as Record<string, number>)[name] ?? GRPC_STATUS.UNKNOWN;
}
