/**
 * Classifies the host of a URL the way a gateway needs it for agent-card interface URLs (cards
 * often advertise localhost, 0.0.0.0 or container IPs, which clients cannot reach) and push
 * webhooks (§13.2: SSRF to private, loopback and metadata addresses). Pure: uses the WHATWG URL
 * parser, which also normalises odd IPv4 spellings (`http://2130706433/`, `0x7f.1`) to dotted form.
 */

export type HostClass = 'loopback' | 'unspecified' | 'private' | 'link-local' | 'internal-name' | 'public' | 'invalid';

export interface ClassifiedUrl {
  readonly hostClass: HostClass;
  /** `http:`, `https:`, …; empty when the URL does not parse. */
  readonly protocol: string;
}

export function classifyUrl(raw: string): ClassifiedUrl {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { hostClass: 'invalid', protocol: '' };
  }
  return { hostClass: classifyHostname(url.hostname), protocol: url.protocol };
}

export function classifyHostname(hostname: string): HostClass {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  if (host === '') return 'invalid';
  if (host.startsWith('[')) return classifyIpv6(host.slice(1, -1));
  const v4 = parseIpv4(host);
  if (v4 !== undefined) return classifyIpv4(v4);
  if (host === 'localhost' || host.endsWith('.localhost')) return 'loopback';
  // Single-label names (docker-compose service names) and cluster/mDNS suffixes only resolve inside.
  if (!host.includes('.') || /\.(local|internal|cluster\.local|svc|lan|home\.arpa)$/.test(host)) return 'internal-name';
  return 'public';
}

function parseIpv4(host: string): number[] | undefined {
  const parts = host.split('.');
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p))) return undefined;
  const octets = parts.map(Number);
  return octets.every((o) => o <= 255) ? octets : undefined;
}

function classifyIpv4([a, b]: number[]): HostClass {
  if (a === 127) return 'loopback';
  if (a === 0) return 'unspecified';
  if (a === 10 || (a === 172 && b !== undefined && b >= 16 && b <= 31) || (a === 192 && b === 168)) return 'private';
  if (a === 100 && b !== undefined && b >= 64 && b <= 127) return 'private'; // carrier-grade NAT
  if (a === 169 && b === 254) return 'link-local'; // includes the 169.254.169.254 metadata service
  return 'public';
}

function classifyIpv6(host: string): HostClass {
  if (host === '::1') return 'loopback';
  if (host === '::') return 'unspecified';
  // IPv4-mapped, as the URL parser prints it: ::ffff:7f00:1
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(host);
  if (mapped !== null) {
    const high = parseInt(mapped[1] as string, 16);
    const low = parseInt(mapped[2] as string, 16);
    return classifyIpv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
  }
  if (/^f[cd][0-9a-f]{0,2}:/.test(host)) return 'private'; // fc00::/7 unique local
  if (/^fe[89ab][0-9a-f]?:/.test(host)) return 'link-local'; // fe80::/10
  return 'public';
}

/** True for hosts a public client cannot or must not reach. */
export function isNonPublic(hostClass: HostClass): boolean {
  return hostClass !== 'public' && hostClass !== 'invalid';
}

/** A gRPC address as A2A HEAD writes it (§7.3): `hostname:port` or `[v6]:port`, no scheme, no path. */
export function isHostPort(address: string): boolean {
  return /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9._-]+):\d{1,5}$/.test(address);
}
