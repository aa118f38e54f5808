/** The media type of a JSON body the gateway writes itself (its errors, the timeout rescue's answers). */
import type { JsonBinding, ProtocolVersion } from './operations.js';

/** REST 1.0 SHOULD use application/a2a+json (spec §11.1); JSON-RPC and 0.3 use application/json. */
export function contentTypeFor(binding: JsonBinding, version: ProtocolVersion): string {
  return binding === 'rest' && version === '1.0' ? 'application/a2a+json' : 'application/json';
}
