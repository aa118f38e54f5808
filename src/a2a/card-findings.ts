/**
 * Findings about the interface URLs an agent card advertises: cards are often published with
 * the address the agent was deployed at (localhost, 0.0.0.0, a container IP, plain http), which
 * sends clients somewhere they cannot reach or around the gateway. Covers 1.0
 * `supportedInterfaces[].url` and 0.3 `url` + `additionalInterfaces[].url` (wire-reference §3, §6.5);
 * a2a-js compat servers serve hybrids with both (capture `v1compat--v03client-jsonrpc-card.http`).
 */
import { FindingSink, type Finding } from './findings.js';
import { classifyUrl } from './url-host.js';

export interface CardFindingOptions {
  /**
   * The card reaches clients outside the private network (through the gateway's public side).
   * Then private addresses and plain http are findings too; loopback and unspecified always are.
   */
  readonly publicGateway: boolean;
}

export function cardInterfaceUrls(card: unknown): Array<{ url: string; binding: string | undefined }> {
  if (card === null || typeof card !== 'object') return [];
  const c = card as Record<string, unknown>;
  const out: Array<{ url: string; binding: string | undefined }> = [];
  for (const entry of arrayOf(c.supportedInterfaces)) {
    const e = entry as Record<string, unknown>;
    if (typeof e.url === 'string') out.push({ url: e.url, binding: stringOf(e.protocolBinding) });
  }
  if (typeof c.url === 'string') out.push({ url: c.url, binding: stringOf(c.preferredTransport) ?? 'JSONRPC' });
  for (const entry of arrayOf(c.additionalInterfaces)) {
    const e = entry as Record<string, unknown>;
    if (typeof e.url === 'string') out.push({ url: e.url, binding: stringOf(e.transport) });
  }
  return out;
}

export function cardFindings(card: unknown, opts: CardFindingOptions): readonly Finding[] {
  const sink = new FindingSink();
  const urls = cardInterfaceUrls(card);
  if (urls.length === 0) sink.add('card.no-interfaces');
  for (const { url, binding } of urls) {
    // gRPC interfaces may be written as host:port without a scheme (wire-reference §7.3).
    const parsable = binding === 'GRPC' && !url.includes('://') ? `grpc://${url}` : url;
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

function arrayOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value.filter((v) => v !== null && typeof v === 'object') : [];
}

function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
