/**
 * Where each agent serves gRPC, and the HTTP/2 channels to it, for one config generation.
 * The address is `agents.{name}.grpc.url`, else the GRPC interface of the agent's card for the
 * call's protocol version (A2A 1.0 `supportedInterfaces[]` with `protocolBinding: GRPC`; 0.3
 * `preferredTransport` / `additionalInterfaces[]` with `transport: GRPC`, wire-reference §6.5). A
 * `host:port` address (A2A HEAD §7.3) is called over cleartext HTTP/2, as gRPC clients do with
 * insecure credentials; an `https://` one over TLS.
 */
import type { CardCache } from '../../cards/cache.js';
import type { ProtocolVersion } from '../../a2a/operations.js';
import type { Upstream } from '../../transport/upstream.js';
import { GatewayError } from '../../errors/gateway-error.js';
import { GrpcChannel } from './channel.js';
import { isHostPort } from '../../a2a/url-host.js';

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

interface CardInterface {
  readonly url: string;
  readonly version: string | undefined;
}

/** The card's GRPC interfaces, either version's spelling. */
export function grpcInterfaces(card: Record<string, unknown> | undefined): CardInterface[] {
  if (!card) return [];
  const out: CardInterface[] = [];
  const add = (entry: unknown, binding: string) => {
    if (!entry || typeof entry !== 'object') return;
    const e = entry as Record<string, unknown>;
    const kind = e[binding];
    if (typeof kind === 'string' && kind.toUpperCase() === 'GRPC' && typeof e.url === 'string') {
      out.push({ url: e.url, version: typeof e.protocolVersion === 'string' ? e.protocolVersion : undefined });
    }
  };
  for (const entry of asList(card.supportedInterfaces)) add(entry, 'protocolBinding');
  for (const entry of asList(card.additionalInterfaces))
    add({ protocolVersion: '0.3', ...(entry as object) }, 'transport');
  if (typeof card.url === 'string' && String(card.preferredTransport).toUpperCase() === 'GRPC') {
    out.push({ url: card.url, version: '0.3' });
  }
  return out;
}

function asList(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** The channels of one generation's agents, made on first use and closed with the generation. */
export class GrpcAgents {
  private readonly channels = new Map<string, GrpcChannel>();

  constructor(private readonly cards: CardCache) {}

  /** The channel for `upstream`'s gRPC interface for `version`; UNAVAILABLE when it has none. */
  async channelFor(upstream: Upstream, version: ProtocolVersion): Promise<GrpcChannel> {
    const address = upstream.config.grpc.url ?? (await this.fromCard(upstream, version));
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

  private async fromCard(upstream: Upstream, version: ProtocolVersion): Promise<string | undefined> {
    const cached = await this.cards.get(upstream, upstream.config.cardPath, { 'a2a-version': version });
    const interfaces = grpcInterfaces(cached.card);
    const sameVersion = interfaces.find((i) => i.version === undefined || i.version.startsWith(version));
    return (sameVersion ?? interfaces[0])?.url;
  }
}
