/**
 * The gateway's gRPC address for an agent, as its card advertises it (issue #16 item 4): the
 * agent's own gRPC port (`agents.{name}.grpc.listen`) on the host the card was asked of, or the
 * shared gRPC listener (`listen.grpc`) under one of the agent's `hosts` — the shared listener
 * routes by `:authority`, so the address must name one: the one the card was asked of when it is
 * the agent's, else its first. None of these: the agent has no gRPC route (its GRPC interfaces
 * stay as they are, and are reported).
 */
import type { GrpcPorts } from './ports.js';

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
