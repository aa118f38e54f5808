/**
 * The URL clients reach the gateway at, used when rewriting cards: `publicUrl` from config;
 * else X-Forwarded-Proto/-Host when the peer is a configured trusted proxy; else the Host header.
 * An agent routed by host is at the root of the Host it was reached by (`publicHostUrl`).
 */
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';

/** `::ffff:127.0.0.1` and `127.0.0.1` are the same peer. */
export function normalizeAddress(address: string | undefined): string {
  if (!address) return '';
  return address.startsWith('::ffff:') ? address.slice(7) : address;
}

export class PeerTrust {
  private readonly trusted: Set<string>;
  constructor(addresses: readonly string[]) {
    this.trusted = new Set(addresses.map(normalizeAddress));
  }
  /** Whether the peer at `address` (a socket's remoteAddress) is a configured trusted proxy. */
  isTrusted(address: string | undefined): boolean {
    return this.trusted.size > 0 && this.trusted.has(normalizeAddress(address));
  }
}

function firstValue(value: string | string[] | undefined): string | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  return text?.split(',')[0]?.trim() || undefined;
}

export function publicBaseUrl(req: IncomingMessage, configured: string | undefined, trusted: boolean): string {
  if (configured) return configured;
  const proto = schemeOf(req, trusted);
  const host =
    (trusted && firstValue(req.headers['x-forwarded-host'])) ||
    req.headers.host ||
    `${req.socket.localAddress}:${req.socket.localPort}`;
  return `${proto}://${host}`;
}

/** The scheme the client used: a trusted proxy's X-Forwarded-Proto, else the connection's. */
function schemeOf(req: IncomingMessage, trusted: boolean): string {
  const ownProto = (req.socket as TLSSocket).encrypted ? 'https' : 'http';
  return (trusted && firstValue(req.headers['x-forwarded-proto'])) || ownProto;
}

/**
 * The public URL of an agent routed by host (src/pipeline/route.ts): the origin the client named in
 * `Host` — it routed there, so it is that agent's root — with `publicUrl`'s scheme when one is
 * configured (the gateway is behind TLS it does not terminate), else the request's own.
 */
export function publicHostUrl(req: IncomingMessage, configured: string | undefined, trusted: boolean): string {
  const proto = configured ? configured.slice(0, configured.indexOf(':')) : schemeOf(req, trusted);
  return `${proto}://${req.headers.host ?? ''}`;
}

/**
 * The client's address, for rate limits when no one signed in: the peer, or — behind a trusted
 * proxy — the address that proxy appended last to X-Forwarded-For (earlier entries are the
 * client's own say and could be forged).
 */
export function clientAddress(
  call: { readonly remoteAddress: string | undefined; readonly headers: IncomingHttpHeaders },
  trusted: boolean,
): string {
  const peer = normalizeAddress(call.remoteAddress);
  if (!trusted) return peer;
  const header = call.headers['x-forwarded-for'];
  const last = (Array.isArray(header) ? header.join(',') : header)?.split(',').at(-1)?.trim();
  return last ? normalizeAddress(last) : peer;
}
