/**
 * Push-notification webhook SSRF guard. A client registers a webhook URL that the agent
 * behind the gateway later POSTs task updates to; a hostile client names 169.254.169.254 (cloud metadata),
 * 127.0.0.1 or an internal host instead, and the agent becomes its proxy into our network. The gateway
 * refuses such URLs before they reach the agent.
 *
 * IP literals are classified with ipaddr.js: anything outside its `unicast` range is refused. Host names are
 * resolved once, within a time bound, and refused when any address is not public. `pushNotifications.allow`
 * opens exceptions by CIDR, IP or exact host name. The WHATWG URL parser has already normalised odd IPv4
 * spellings (`2130706433`, `0x7f000001`, `0177.0.0.1`, `127.1`) to dotted decimal, so only that form is seen.
 *
 * Not covered here: the agent resolves the name again when it POSTs, so a name whose answer changes between
 * this check and that request (DNS rebinding), or a webhook that answers with a redirect, needs the agent's
 * HTTP client to pin the checked address. src/a2a/url-host.ts is the pure, classification-only sibling.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';
import { parseAllowEntry, type Address, type Cidr } from '../config/allow-entry.js';

export const PUSH_RULES = [
  'push-url-invalid',
  'push-url-scheme',
  'push-url-address',
  'push-url-resolves-private',
  'push-url-unresolvable',
] as const;
export type PushRule = (typeof PUSH_RULES)[number];
export type PushVerdict =
  { readonly ok: true } | { readonly ok: false; readonly rule: PushRule; readonly message: string };
/** Resolves a host name to all of its addresses. */
export type Lookup = (hostname: string) => Promise<readonly string[]>;

export interface PushGuardOptions {
  /** Allow-list entries: a CIDR (`10.1.0.0/16`, `127.0.0.1/32`, `::1/128`), a bare IP, or a host name (exact match, case-insensitive, trailing dot ignored). */
  readonly allow: readonly string[];
  /** Bound on one DNS resolution; past it the URL is refused (push-url-unresolvable). */
  readonly resolveTimeoutMs: number;
  /** Defaults to node:dns/promises lookup(host, { all: true, verbatim: true }). Tests inject. */
  readonly lookup?: Lookup;
}

const OK: PushVerdict = { ok: true };
const PUBLIC_ONLY = 'push webhooks must be public (pushNotifications.allow opens exceptions)';
// ipaddr.js calls the deprecated IPv4-compatible block (::a.b.c.d, RFC 4291 §2.5.5.1) unicast, but some
// stacks still route it to the embedded IPv4 address, so `[::127.0.0.1]` must not pass as public.
const IPV4_COMPATIBLE = ipaddr.IPv6.parseCIDR('::/96');
// Names for messages; ranges not listed here (AMT, AS112, ORCHID, …) fall back to ipaddr.js's own name.
const RANGE_LABELS: Readonly<Record<string, string>> = {
  loopback: 'a loopback',
  private: 'a private',
  linkLocal: 'a link-local',
  carrierGradeNat: 'a carrier-grade NAT',
  multicast: 'a multicast',
  unspecified: 'an unspecified',
  broadcast: 'a broadcast',
  reserved: 'a reserved',
  uniqueLocal: 'a unique-local',
  ipv4Compatible: 'an IPv4-compatible',
  rfc6145: 'an IPv4-translated (RFC 6145)',
  rfc6052: 'a NAT64 (RFC 6052)',
  '6to4': 'a 6to4',
  teredo: 'a Teredo',
};

export class PushGuard {
  private readonly cidrs: readonly Cidr[];
  private readonly hosts: ReadonlySet<string>;
  private readonly lookup: Lookup;
  private readonly resolveTimeoutMs: number;

  constructor(options: PushGuardOptions) {
    const cidrs: Cidr[] = [];
    const hosts = new Set<string>();
    // Parsed once here, not per check; a bad entry is a configuration bug, so it fails loudly.
    for (const entry of options.allow) {
      const parsed = parseAllowEntry(entry);
      if (parsed.kind === 'problem') throw new Error(`pushNotifications.allow: ${parsed.message}`);
      if (parsed.kind === 'cidr') cidrs.push(parsed.cidr);
      else hosts.add(parsed.name);
    }
    this.cidrs = cidrs;
    this.hosts = hosts;
    this.lookup = options.lookup ?? systemLookup;
    this.resolveTimeoutMs = options.resolveTimeoutMs;
  }

  async check(raw: string): Promise<PushVerdict> {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return refuse('push-url-invalid', 'push notification URL does not parse as an absolute URL');
    }
    // Before the allow list: an allowed host still must not be reached over file:, ftp:, javascript:, …
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      return refuse('push-url-scheme', `push notification URL scheme ${url.protocol} is not http: or https:`);
    }
    const literal = hostLiteral(url.hostname);
    return literal !== undefined ? this.checkLiteral(literal) : this.checkName(url.hostname.replace(/\.$/, ''));
  }

  private checkLiteral(address: Address): PushVerdict {
    const range = nonPublicRange(address);
    if (range === undefined || this.allowed(address)) return OK;
    return refuse(
      'push-url-address',
      `push notification URL names ${label(range)} address (${address}); ${PUBLIC_ONLY}`,
    );
  }

  private async checkName(host: string): Promise<PushVerdict> {
    if (this.hosts.has(host)) return OK;
    // RFC 6761: localhost names are loopback whatever DNS says, so no lookup is needed to refuse them.
    if (host === 'localhost' || host.endsWith('.localhost')) {
      return refuse('push-url-address', `push notification URL names ${host}, a loopback name; ${PUBLIC_ONLY}`);
    }
    const answer = await this.resolve(host);
    if (typeof answer === 'string') {
      return refuse('push-url-unresolvable', `push notification URL host ${host} ${answer}; it is refused unchecked`);
    }
    for (const text of answer) {
      const address = parseAddress(text);
      if (address === undefined) {
        return refuse('push-url-unresolvable', `push notification URL host ${host} resolved to "${text}", not an IP`);
      }
      const range = nonPublicRange(address);
      if (range !== undefined && !this.allowed(address)) {
        const what = `${label(range)} address (${address})`;
        return refuse(
          'push-url-resolves-private',
          `push notification URL host ${host} resolves to ${what}; ${PUBLIC_ONLY}`,
        );
      }
    }
    return OK;
  }

  /** All addresses of `host`, or why there are none: a stuck resolver must not hold the request open. */
  private async resolve(host: string): Promise<readonly string[] | string> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<string>((resolve) => {
      timer = setTimeout(() => resolve(`did not resolve within ${this.resolveTimeoutMs} ms`), this.resolveTimeoutMs);
      timer.unref(); // a pending check must not keep the process alive on shutdown
    });
    try {
      const answer = await Promise.race([this.lookup(host), timeout]);
      return typeof answer !== 'string' && answer.length === 0 ? 'resolved to no addresses' : answer;
    } catch (err) {
      return `did not resolve (${errorText(err)})`;
    } finally {
      clearTimeout(timer);
    }
  }

  private allowed(address: Address): boolean {
    // ipaddr.js throws when matching an IPv4 address against an IPv6 network, so kinds are compared first.
    return this.cidrs.some(([network, bits]) => network.kind() === address.kind() && address.match(network, bits));
  }
}

const systemLookup: Lookup = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address);

/** The address a URL host names, when it is an IP literal (`[…]` for IPv6, dotted decimal after WHATWG). */
function hostLiteral(hostname: string): Address | undefined {
  if (hostname.startsWith('[')) return parseAddress(hostname.slice(1, -1));
  return ipaddr.IPv4.isValidFourPartDecimal(hostname) ? ipaddr.IPv4.parse(hostname) : undefined;
}

/** IPv4-mapped IPv6 (`::ffff:127.0.0.1`) becomes IPv4: it reaches the IPv4 host, and is judged as one. */
function parseAddress(text: string): Address | undefined {
  try {
    return ipaddr.process(text);
  } catch {
    return undefined;
  }
}

function nonPublicRange(address: Address): string | undefined {
  const range = address.range();
  if (range !== 'unicast') return range;
  return address instanceof ipaddr.IPv6 && address.match(IPV4_COMPATIBLE) ? 'ipv4Compatible' : undefined;
}

function label(range: string): string {
  return RANGE_LABELS[range] ?? `a special-purpose (${range})`;
}

function refuse(rule: PushRule, message: string): PushVerdict {
  return { ok: false, rule, message };
}

function errorText(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string') return code;
  return err instanceof Error ? err.message : String(err);
}
