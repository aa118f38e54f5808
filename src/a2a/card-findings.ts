/**
 * Findings about the interface URLs an agent card advertises: cards are often published with
 * the address the agent was deployed at (localhost, 0.0.0.0, a container IP, plain http), which
 * sends clients somewhere they cannot reach or around the gateway. Covers every interface
 * `interfacesOf` lists (card-interfaces.ts): 1.0 `supportedInterfaces[].url` and 0.3 `url` +
 * `additionalInterfaces[].url` (wire-reference §3, §6.5), both in a2a-js compat hybrids.
 */
import { interfacesOf, isGrpcBinding } from './card-interfaces.js';
import { FindingSink, type Finding } from './findings.js';
import { classifyUrl } from './url-host.js';

export interface CardFindingOptions {
  /**
   * The card reaches clients outside the private network (through the gateway's public side).
   * Then private addresses and plain http are findings too; loopback and unspecified always are.
   */
  readonly publicGateway: boolean;
}

/** The URL and binding of each interface, what the findings check. */
export function cardInterfaceUrls(card: unknown): Array<{ url: string; binding: string | undefined }> {
  return interfacesOf(card).map(({ url, binding }) => ({ url, binding }));
}

export function cardFindings(card: unknown, opts: CardFindingOptions): readonly Finding[] {
  const sink = new FindingSink();
  const urls = cardInterfaceUrls(card);
  if (urls.length === 0) sink.add('card.no-interfaces');
  for (const { url, binding } of urls) {
    // gRPC interfaces may be written as host:port without a scheme (wire-reference §7.3).
    const parsable = isGrpcBinding(binding) && !url.includes('://') ? `grpc://${url}` : url;
    const { hostClass, protocol } = classifyUrl(parsable);
    switch (hostClass) {
      case 'invalid':
        sink.add('card.interface-invalid-url', url);
        continue;
      case 'loopback':
        sink.add('card.interface-loopback', url);
        break;
      case 'unspecified':
        sink.add('card.interface-unspecified', url);
        break;
      case 'private':
      case 'link-local':
      case 'internal-name':
        if (opts.publicGateway) sink.add('card.interface-private', url);
        break;
      case 'public':
        break;
      default: {
        const _exhaustive: never = hostClass;
        return _exhaustive;
      }
    }
    if (opts.publicGateway && protocol === 'http:') sink.add('card.interface-plain-http', url);
  }
  return sink.list();
}
