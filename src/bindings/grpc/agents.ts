/**
 * Where each agent serves gRPC, and the HTTP/2 channels to it, for one config generation.
 * The address is `agents.{name}.grpc.url`, else the GRPC interface of the agent's card for the
 * call's protocol version (A2A 1.0 `supportedInterfaces[]` with `protocolBinding: GRPC`; 0.3
 * `preferredTransport` / `additionalInterfaces[]` with `transport: GRPC`, wire-reference §6.5;
 * read by `interfacesOf`, as the card rewrite reads them). A
 * `host:port` address (A2A HEAD §7.3) is called over cleartext HTTP/2, as gRPC clients do with
 * insecure credentials; an `https://` one over TLS.
 */
import type { CardCache } from '../../cards/cache.js';
import type { ProtocolVersion } from '../../a2a/operations.js';
import type { Upstream } from '../../transport/upstream.js';
import type { Replica } from '../../transport/replica.js';
import { GatewayError } from '../../errors/gateway-error.js';
import { GrpcChannel } from './channel.js';
import { isHostPort } from '../../a2a/url-host.js';
import { interfacesOf, isGrpcBinding, type CardInterface } from '../../a2a/card-interfaces.js';

/** `host:port` or `http(s)://host:port` → the origin node:http2 connects to. */
export function grpcOrigin(address: string): string | undefined {
  if (/^https?:\/\//i.test(address)) {
    try {
      return new URL(address).origin;
    } catch {
      return undefined;
    }
  }
  return isHostPort(address) ? `http://${address}` : undefined;
}

/** A GRPC interface of a card: its address and the protocol version it speaks (undefined: any). */
export type GrpcInterface = Pick<CardInterface, 'url' | 'version'>;

/**
 * The card's GRPC interfaces (`interfacesOf`, src/a2a/card-interfaces.ts). A 0.3 card's own `url`
 * comes after its lists: `fromCard` takes the first of a version, and this keeps the address it
 * has called such a card's agent at (test/grpc/addresses.test.ts).
 */
export function grpcInterfaces(card: Record<string, unknown> | undefined): GrpcInterface[] {
  const grpc = interfacesOf(card).filter((i) => isGrpcBinding(i.binding));
  const main = grpc.filter((i) => i.where.field === 'url');
  return [...grpc.filter((i) => i.where.field !== 'url'), ...main].map(({ url, version }) => ({ url, version }));
}

/** The channels of one generation's agents, made on first use and closed with the generation. */
export class GrpcAgents {
  private readonly channels = new Map<string, GrpcChannel>();

  constructor(private readonly cards: CardCache) {}

  /** The channel for `upstream`'s gRPC interface for `version`; UNAVAILABLE when it has none. */
  async channelFor(upstream: Upstream, replica: Replica | undefined, version: ProtocolVersion): Promise<GrpcChannel> {
    const address = await this.addressOf(upstream, replica, version);
    const origin = address === undefined ? undefined : grpcOrigin(address);
    if (origin === undefined) {
      throw new GatewayError(
        'UPSTREAM_UNREACHABLE',
        `agent ${upstream.name} has no gRPC interface the gateway can call`,
        {
          agent: upstream.name,
        },
      );
    }
    let channel = this.channels.get(origin);
    if (!channel) {
      const { connections } = upstream.config.grpc;
      channel = new GrpcChannel({ origin, connections, connectTimeoutMs: upstream.config.timeouts.connect });
      this.channels.set(origin, channel);
    }
    return channel;
  }

  async close(): Promise<void> {
    await Promise.all([...this.channels.values()].map((c) => c.close()));
  }

  /**
   * The replica's own `upstreams[].grpc`; with one replica, `grpc.url` or the card's. Several
   * replicas without their own addresses have no address affinity could keep (docs/fleet.md).
   */
  private async addressOf(
    upstream: Upstream,
    replica: Replica | undefined,
    version: ProtocolVersion,
  ): Promise<string | undefined> {
    if (replica?.grpc !== undefined) return replica.grpc;
    if (upstream.replicas.length > 1) {
      const message = `agent ${upstream.name} has ${upstream.replicas.length} replicas: give each its gRPC address (upstreams[].grpc)`;
      throw new GatewayError('UPSTREAM_UNREACHABLE', message, { agent: upstream.name });
    }
    return upstream.config.grpc.url ?? (await this.fromCard(upstream, version));
  }

  private async fromCard(upstream: Upstream, version: ProtocolVersion): Promise<string | undefined> {
    const cached = await this.cards.get(upstream, upstream.config.cardPath, { 'a2a-version': version });
    const interfaces = grpcInterfaces(cached.card);
    const sameVersion = interfaces.find((i) => i.version === undefined || i.version.startsWith(version));
    return (sameVersion ?? interfaces[0])?.url;
  }
}
