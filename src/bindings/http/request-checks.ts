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
 * - A compressed request body (`Content-Encoding` other than `identity`, any casing, any list):
 *   415 with `Accept-Encoding: identity` (RFC 9110 §15.5.16 and §12.5.3). Every body check of
 *   the pipeline (the push-webhook guard, ownership, rules, inspection) reads the body as sent,
 *   and an agent behind may well inflate what the gateway could not read (Express body-parser
 *   does), so a body the gateway cannot read is never forwarded (issue #29; docs/security.md).
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

const ACCEPT_IDENTITY = { 'accept-encoding': 'identity' };

/**
 * The refusal of a compressed request body, on the agent routes (pipeline step 2, answered after
 * step 3 in the caller's protocol). The hot path pays one header lookup: an uncompressed request
 * has no `Content-Encoding`, and nothing else is looked at.
 */
export function codingRefusal(req: IncomingMessage): GatewayError | undefined {
  const coding = req.headers['content-encoding'];
  if (coding === undefined) return undefined;
  if (coding.trim().toLowerCase() === 'identity' || coding.trim() === '') return undefined;
  // A body-less request (GET, or a declared length of 0) carries nothing to decode.
  const length = req.headers['content-length'];
  if (req.headers['transfer-encoding'] === undefined && (length === undefined || length === '0')) return undefined;
  const message = `the request body is Content-Encoding ${JSON.stringify(coding.slice(0, 32))}; the gateway reads and checks only uncompressed bodies (send it with no Content-Encoding)`;
  return new GatewayError('UNSUPPORTED_MEDIA_TYPE', message, {}, { headers: ACCEPT_IDENTITY });
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
