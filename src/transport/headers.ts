/**
 * Header hygiene for a reverse proxy. Works on Node's flat `rawHeaders` arrays
 * ([name, value, name, value, …]) so names keep their case and order and nothing is re-parsed
 * on the hot path.
 */

/** Hop-by-hop headers (RFC 9110 §7.6.1) plus ones a proxy must regenerate. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** Also removed from requests: Host is set to the agent's (X-Forwarded-Host carries the original);
 * Expect is answered by Node itself. */
const REQUEST_ONLY = new Set(['host', 'expect']);

/** Names listed in a Connection header are hop-by-hop too (RFC 9110 §7.6.1). */
function connectionListed(raw: readonly string[]): Set<string> | undefined {
  let listed: Set<string> | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]!.length === 10 && raw[i]!.toLowerCase() === 'connection') {
      for (const token of raw[i + 1]!.split(',')) {
        const name = token.trim().toLowerCase();
        if (name && name !== 'close' && name !== 'keep-alive') (listed ??= new Set()).add(name);
      }
    }
  }
  return listed;
}

export interface ForwardedFor {
  /** The address of the peer that connected to the gateway. */
  peerAddress: string;
  /** Whether that peer is a configured trusted proxy (its X-Forwarded-* are kept and extended). */
  trusted: boolean;
  /** The scheme the client used to reach the gateway's listener. */
  proto: 'http' | 'https';
}

/**
 * The headers to send upstream: end-to-end headers kept in order (A2A-Version, A2A-Extensions,
 * X-A2A-Extensions, Authorization … — wire-reference §5.9), hop-by-hop removed, X-Forwarded-*
 * set, and the agent's configured extra headers applied last (they replace a client's value).
 */
export function upstreamRequestHeaders(
  raw: readonly string[],
  fwd: ForwardedFor,
  extra: ReadonlyArray<readonly [string, string]>,
  /** Lower-case names never forwarded (the caller's credentials, unless the agent takes them). */
  strip?: ReadonlySet<string>,
): string[] {
  const listed = connectionListed(raw);
  const out: string[] = [];
  let xff: string | undefined;
  let xfProto: string | undefined;
  let xfHost: string | undefined;
  let host: string | undefined;
  const extraNames = extra.length ? new Set(extra.map(([n]) => n.toLowerCase())) : undefined;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    const value = raw[i + 1]!;
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.has(lower) || listed?.has(lower) || extraNames?.has(lower) || strip?.has(lower)) continue;
    if (lower === 'host') host = value;
    if (REQUEST_ONLY.has(lower)) continue;
    if (lower === 'x-forwarded-for') {
      xff = xff ? `${xff}, ${value}` : value;
      continue;
    }
    if (lower === 'x-forwarded-proto') {
      xfProto ??= value;
      continue;
    }
    if (lower === 'x-forwarded-host') {
      xfHost ??= value;
      continue;
    }
    out.push(name, value);
  }
  // An untrusted peer's X-Forwarded-* are dropped, not extended: they could be forged.
  out.push('x-forwarded-for', fwd.trusted && xff ? `${xff}, ${fwd.peerAddress}` : fwd.peerAddress);
  out.push('x-forwarded-proto', fwd.trusted && xfProto ? xfProto : fwd.proto);
  const forwardedHost = fwd.trusted && xfHost ? xfHost : host;
  if (forwardedHost) out.push('x-forwarded-host', forwardedHost);
  for (const [name, value] of extra) out.push(name, value);
  return out;
}

/** Response headers from undici's parsed object, hop-by-hop removed, as a flat list for writeHead. */
export function clientResponseHeaders(headers: Record<string, string | string[] | undefined>): string[] {
  const connection = headers['connection'];
  const listed = connection
    ? connectionListed(['connection', Array.isArray(connection) ? connection.join(',') : connection])
    : undefined;
  const out: string[] = [];
  for (const name in headers) {
    if (HOP_BY_HOP.has(name) || listed?.has(name)) continue;
    const value = headers[name];
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const v of value) out.push(name, v);
    else out.push(name, value);
  }
  return out;
}

/**
 * What describes the agent's exact bytes: their framing, and validators and digests of them. A
 * strong ETag names one representation (RFC 9110 §8.8.3), a digest its bytes (RFC 9530), so none
 * may ride on a body the gateway rewrote.
 */
const OF_THE_BYTES = [
  'content-length',
  'transfer-encoding',
  'etag',
  'content-md5',
  'digest',
  'content-digest',
  'repr-digest',
];

/**
 * Response headers for a body the gateway rewrote (a filtered list, a translation, a rescued
 * answer, a signed card): the old body's framing, validators and digests dropped, along with
 * `replaced` (names the caller sets again after), and the new body's length added.
 */
export function withRewrittenBody(
  headers: readonly string[],
  length: number,
  replaced: readonly string[] = [],
): string[] {
  return withLength(headers, length, new Set([...OF_THE_BYTES, ...replaced]));
}

/** Headers for a body sent whole, unchanged (the agent's reply read whole, a request re-sent): its framing replaced by its length. */
export function withBodyLength(headers: readonly string[], length: number): string[] {
  return withLength(headers, length, FRAMING);
}

const FRAMING: ReadonlySet<string> = new Set(['content-length', 'transfer-encoding']);

function withLength(headers: readonly string[], length: number, dropped: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (let i = 0; i < headers.length; i += 2)
    if (!dropped.has(headers[i]!.toLowerCase())) out.push(headers[i]!, headers[i + 1]!);
  out.push('content-length', String(length));
  return out;
}
