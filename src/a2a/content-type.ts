/**
 * The media type of a JSON body the gateway writes itself (its errors, the timeout rescue's
 * answers, an idempotent send's replay): `application/a2a+json` (§11.1, §14.1) to a caller that
 * used it, and to every REST 1.0 caller (§11.1 SHOULD; the SDK 1.3.0 REST agent answers so
 * whatever the request said); else `application/json`, which JSON-RPC requires (§9.1) and 0.3
 * used. A caller "used it" when its Accept puts `application/a2a+json` first (the SDK 1.3.0 REST
 * client sends `application/a2a+json, application/json`), or, when Accept puts neither JSON type
 * first, when its Content-Type is `application/a2a+json` (capture
 * `v1--edge-rpc-a2a-json-content-type.http`; wire-reference §7.1 #13: accept both everywhere).
 */
import type { JsonBinding, ProtocolVersion } from './operations.js';

export const A2A_JSON = 'application/a2a+json';

/** The first media type of a header value: `application/a2a+json` of `Application/A2A+JSON; q=1, …`. */
const FIRST_TYPE = /^\s*([^\s;,]*)/;

function firstType(value: string | string[] | undefined): string | undefined {
  return typeof value === 'string' ? FIRST_TYPE.exec(value)![1]!.toLowerCase() : undefined;
}

/** The request's headers (lower-case names) say the caller reads application/a2a+json. */
export function usesA2AJson(headers: Readonly<Record<string, string | string[] | undefined>>): boolean {
  const accept = firstType(headers['accept']);
  if (accept === A2A_JSON || accept === 'application/json') return accept === A2A_JSON;
  return firstType(headers['content-type']) === A2A_JSON;
}

export function contentTypeFor(binding: JsonBinding, version: ProtocolVersion, a2aJson = false): string {
  return a2aJson || (binding === 'rest' && version === '1.0') ? A2A_JSON : 'application/json';
}
