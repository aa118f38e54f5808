/**
 * The extended card over gRPC (1.0 `GetExtendedAgentCard`, 0.3 `GetAgentCard`: an AgentCard
 * message, docs/proto/*.proto) gets the URL rewrite of every card (src/cards/rewrite-proto.ts):
 * its HTTP interfaces move under the agent's public URL (at the traffic listener: `publicUrl`,
 * else its address, then `/agents/{name}`), its GRPC interfaces to the gateway's gRPC address for
 * the agent on the host the call was made to (card-address.ts). An answer that is no card it
 * can read is passed on as it came, with the finding `a2a.extended-card-not-a-card` (as the HTTP
 * twin, src/bindings/http/extended-card.ts).
 */
import type { ProtocolVersion } from '../../a2a/operations.js';
import { rewriteCardProto } from '../../cards/rewrite-proto.js';
import type { Upstream } from '../../transport/upstream.js';
import { gatewayGrpcAuthority, type GrpcPorts } from '../../cards/grpc-address.js';
import type { HeldRewrite } from './held-answer.js';
import type { MessageResult } from '../../exchange/answer-rewrite.js';

/** What the gRPC pipeline needs to point a card at the gateway. */
export interface GrpcCardDeps {
  /** The traffic listener's public base URL (`publicUrl`, else its address). */
  readonly publicBase: () => string;
  readonly grpcPorts: GrpcPorts;
  /** `cards.maxBytes`: the largest card held. */
  readonly maxBytes: number;
}

function notCard(detail: string): MessageResult {
  return { asIs: true, findings: [{ rule: 'a2a.extended-card-not-a-card', count: 1, detail }] };
}

/** The hostname of the `:authority` the call was made to (IPv6 in brackets), if it is one. */
function hostnameOf(authority: string | undefined): string | undefined {
  if (!authority) return undefined;
  try {
    return new URL(`http://${authority}`).hostname;
  } catch {
    return undefined;
  }
}

/** `replicaUrl`: the replica that answers, whose own URLs its card names (docs/fleet.md "Replicas"). */
export function grpcExtendedCardRewrite(
  upstream: Upstream,
  replicaUrl: string,
  version: ProtocolVersion,
  authority: string | undefined,
  deps: GrpcCardDeps,
): HeldRewrite {
  const agent = upstream.name;
  const publicAgentUrl = `${deps.publicBase()}/agents/${encodeURIComponent(agent)}`;
  const host = hostnameOf(authority) ?? new URL(publicAgentUrl).hostname;
  const grpc = gatewayGrpcAuthority(agent, upstream.config.hosts, host, deps.grpcPorts);
  return {
    maxBytes: deps.maxBytes,
    message: {
      apply(message) {
        const out = rewriteCardProto(message, version, replicaUrl, publicAgentUrl, grpc);
        return out.notCard !== undefined ? notCard(out.notCard) : { message: out.body };
      },
      unreadable: notCard,
    },
  };
}
