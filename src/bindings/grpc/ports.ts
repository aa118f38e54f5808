/**
 * Where the gateway serves gRPC, as bound: the shared listener's port (`listen.grpc`) and the
 * agents' own (`agents.{name}.grpc.listen`). Filled by src/bindings/grpc/listeners.ts once they listen;
 * read by the card rewrite (card-address.ts) for every card it serves.
 */
export interface GrpcPorts {
  shared: number | undefined;
  readonly agents: Map<string, number>;
}

export function grpcPorts(): GrpcPorts {
  return { shared: undefined, agents: new Map() };
}
