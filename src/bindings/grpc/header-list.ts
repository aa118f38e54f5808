/**
 * `limits.headerBytes` on gRPC calls: the request's header list (its metadata and
 * pseudo-headers) measured as HTTP/2 measures it, and refused past the limit before anything is
 * sent to the agent. The listener advertises the same number as SETTINGS_MAX_HEADER_LIST_SIZE
 * (listener.ts), but that setting is advisory (RFC 9113 §6.5.2) and Node enforces it only once
 * the client has acknowledged the SETTINGS (RFC 9113 §6.5.3): a client that sends its HEADERS
 * first, or never acknowledges, had 70 KB of metadata forwarded (issue #29 item 6). The HTTP
 * listeners refuse an oversized head in Node's parser (src/transport/client-limits.ts, 431); here
 * the refusal is HEADERS_TOO_LARGE, answered trailers-only as RESOURCE_EXHAUSTED
 * (src/errors/gateway-error.ts, src/errors/grpc-answer.ts).
 */
import { GatewayError } from '../../errors/gateway-error.js';

/** Octets each field line counts on top of its name and value (RFC 7541 §4.1, RFC 9113 §6.5.2). */
const FIELD_OVERHEAD = 32;

/**
 * The size of a header list as SETTINGS_MAX_HEADER_LIST_SIZE counts it: over every field line,
 * pseudo-headers included, name length + value length + 32. `raw` is Node's `rawHeaders` (name,
 * value, name, value, …): Node decodes HTTP/2 fields as latin1, one character per octet, so a
 * string's length is its length on the wire.
 */
export function headerListSize(raw: readonly string[]): number {
  let size = 0;
  for (let i = 0; i + 1 < raw.length; i += 2) size += raw[i]!.length + raw[i + 1]!.length + FIELD_OVERHEAD;
  return size;
}

/** HEADERS_TOO_LARGE when the call's header list is larger than `limit` octets; else undefined. */
export function headerListRefusal(raw: readonly string[], limit: number): GatewayError | undefined {
  const size = headerListSize(raw);
  if (size <= limit) return undefined;
  const message = `the call's metadata is ${size} bytes, more than limits.headerBytes (${limit} bytes) allows`;
  return new GatewayError('HEADERS_TOO_LARGE', message);
}
