/**
 * One entry of `pushNotifications.allow` (src/access/push-guard.ts): a CIDR, a bare IP or an exact
 * host name. Read here, where the config is validated (config/access-schema.ts reports a bad
 * entry with its key path), and by the push guard when it is built.
 */
import ipaddr from 'ipaddr.js';

export type Address = ipaddr.IPv4 | ipaddr.IPv6;
export type Cidr = readonly [Address, number];
export type AllowEntry =
  | { readonly kind: 'cidr'; readonly cidr: Cidr }
  | { readonly kind: 'host'; readonly name: string }
  | { readonly kind: 'problem'; readonly message: string };

/** Validates one allow-list entry for config validation: undefined when fine, else a message. */
export function allowEntryProblem(entry: string): string | undefined {
  const parsed = parseAllowEntry(entry);
  return parsed.kind === 'problem' ? parsed.message : undefined;
}

export function parseAllowEntry(entry: string): AllowEntry {
  const text = entry.trim();
  if (text === '') return { kind: 'problem', message: 'an allow entry is empty' };
  if (text.includes('/')) return parseCidrEntry(text);
  if (ipaddr.isValid(text)) return parseCidrEntry(`${text}/${text.includes(':') ? 128 : 32}`);
  return parseHostEntry(text);
}

function parseCidrEntry(text: string): AllowEntry {
  if (!ipaddr.isValidCIDR(text)) {
    return { kind: 'problem', message: `"${text}" is not a valid CIDR (e.g. 10.1.0.0/16 or fd00::/8)` };
  }
  // ipaddr.js also reads `127.1` or `0x7f.1`; in a config file those are more likely typos than intent.
  if (!text.includes(':') && !ipaddr.IPv4.isValidCIDRFourPartDecimal(text)) {
    return { kind: 'problem', message: `"${text}": write IPv4 addresses as four decimal parts (e.g. 10.0.0.0/8)` };
  }
  const [network, bits] = ipaddr.parseCIDR(text);
  // Checked addresses have IPv4-mapped IPv6 turned into IPv4, so a mapped network is turned the same way.
  if (network instanceof ipaddr.IPv6 && network.isIPv4MappedAddress() && bits >= 96) {
    return { kind: 'cidr', cidr: [network.toIPv4Address(), bits - 96] };
  }
  return { kind: 'cidr', cidr: [network, bits] };
}

function parseHostEntry(text: string): AllowEntry {
  const problem = `"${text}" is neither an IP, a CIDR nor a host name`;
  if (text.includes('*')) return { kind: 'problem', message: `"${text}": wildcards are not supported; list each name` };
  if (/[\s/:@?#[\]\\]/.test(text)) return { kind: 'problem', message: problem };
  let host: string;
  try {
    // Normalised exactly as URL host names are (lower case, punycode), so the exact match compares like with like.
    host = new URL(`http://${text}/`).hostname.replace(/\.$/, '');
  } catch {
    return { kind: 'problem', message: problem };
  }
  return host === '' ? { kind: 'problem', message: problem } : { kind: 'host', name: host };
}
