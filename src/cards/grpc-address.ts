/**
 * Where the gateway serves gRPC, as bound: the shared listener's port (`listen.grpc`) and the
 * agents' own (`agents.{name}.grpc.listen`). Filled by src/bindings/grpc/listeners.ts once they listen;
 * read by the card rewrite (`gatewayGrpcAuthority` below) for every card it serves.
 */
export interface GrpcPorts {
  shared: number | undefined;
  readonly agents: Map<string, number>;
}

export function grpcPorts(): GrpcPorts {
  return { shared: undefined, agents: new Map() };
}

/**
 * The gateway's gRPC address for an agent, as its card advertises it: the
 * agent's own gRPC port (`agents.{name}.grpc.listen`) on the host the card was asked of, or the
 * shared gRPC listener (`listen.grpc`) under one of the agent's `hosts` — the shared listener
 * routes by `:authority`, so the address must name one: the one the card was asked of when it is
 * the agent's, else its first. None of these: the agent has no gRPC route (its GRPC interfaces
 * stay as they are, and are reported).
 */

export function gatewayGrpcAuthority(
  agent: string,
  hosts: readonly string[],
  /** The hostname the card was asked of (the public URL's), IPv6 in brackets. */
  askedHost: string,
  ports: GrpcPorts,
): string | undefined {
  const own = ports.agents.get(agent);
  if (own !== undefined) return `${askedHost}:${own}`;
  if (ports.shared === undefined || hosts.length === 0) return undefined;
  const host = hosts.includes(askedHost.toLowerCase()) ? askedHost : hosts[0]!;
  return `${host}:${ports.shared}`;
}
