/**
 * Requests refused before anything is forwarded (principle 19): more header fields than allowed
 * (431; Node would silently drop the rest), a method A2A has no use for, and a `Host` the
 * gateway cannot trust to build URLs from. Pure over the request head.
 *
 * - Methods: GET, HEAD, POST, PUT, PATCH, DELETE and OPTIONS pass; anything else (TRACE would
 *   echo the gateway's injected credentials back) gets 405 with `Allow`.
 * - `Host`: exactly one (RFC 9112 §3.2: a request with more than one is answered 400), and of
 *   host syntax (RFC 3986 §3.2.2, RFC 9110 §7.2) — the card rewrite and `X-Forwarded-Host` put
 *   it into URLs, so `"><script>` or a second host must never get that far. The same goes for a
 *   trusted proxy's `X-Forwarded-Host` and `X-Forwarded-Proto`.
 */
import type { IncomingMessage } from 'node:http';
import { GatewayError } from '../../errors/gateway-error.js';

const ALLOWED_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
const ALLOW_HEADER = [...ALLOWED_METHODS].join(', ');

/** An IP literal (`[v6]`) or a reg-name of unreserved characters, with an optional port. */
const HOST = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._~-]+)(?::[0-9]{1,5})?$/;

function validHost(value: string): boolean {
  return value.length <= 255 && HOST.test(value);
}

export function refusalOf(req: IncomingMessage, trusted: boolean, headerCount: number): GatewayError | undefined {
  const method = req.method ?? 'GET';
  // Node stops reading header fields one past the limit (client-limits.ts), so more means too many.
  if (req.rawHeaders.length / 2 > headerCount) {
    const message = `the request has more than ${headerCount} header fields`;
    return new GatewayError('HEADERS_TOO_LARGE', message, {}, { headers: { connection: 'close' } });
  }
  if (!ALLOWED_METHODS.has(method)) {
    const message = `method ${method.slice(0, 16)} is not allowed`;
    return new GatewayError('METHOD_NOT_ALLOWED', message, {}, { headers: { allow: ALLOW_HEADER } });
  }
  let hosts = 0;
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.length === 4 && raw[i]!.toLowerCase() === 'host') hosts++;
  if (hosts > 1) return new GatewayError('REQUEST_INVALID', 'the request has more than one Host header');
  const host = req.headers.host;
  if (host !== undefined && !validHost(host))
    return new GatewayError('REQUEST_INVALID', 'the Host header is not a host');
  if (trusted) return forwardedRefusal(req);
  return undefined;
}

function forwardedRefusal(req: IncomingMessage): GatewayError | undefined {
  const host = req.headers['x-forwarded-host'];
  const proto = req.headers['x-forwarded-proto'];
  const first = (v: string | string[]) => (Array.isArray(v) ? v[0]! : v).split(',')[0]!.trim();
  if (host !== undefined && !validHost(first(host))) {
    return new GatewayError('REQUEST_INVALID', 'X-Forwarded-Host is not a host');
  }
  if (proto !== undefined && !/^https?$/i.test(first(proto))) {
    return new GatewayError('REQUEST_INVALID', 'X-Forwarded-Proto is not http or https');
  }
  return undefined;
}
