/**
 * Client authentication: turns a request's credentials into a `Principal`, or
 * a fixed reason for refusing it, and says what a 401 should answer (`WWW-Authenticate`, RFC 6750
 * §3). A request carries one credential header or none (issue #29 item 3):
 *
 * - more than one — `X-API-Key` and `Authorization`, or either of them twice, whatever their
 *   values or schemes — is `ambiguous-credentials`: the gateway would vouch for one and an agent
 *   that takes the caller's credentials (`auth.forward`) could read the other, so neither is
 *   judged (RFC 6750 §3.1 `invalid_request`: "uses more than one method for including an access
 *   token"). Counted on the raw header list, since node:http keeps only the first `Authorization`
 *   and joins repeated `X-API-Key` values;
 * - `X-API-Key: <key>`: API keys only (an empty one is an `invalid-key`, not `missing`: the caller
 *   did send the header);
 * - `Authorization: Bearer <token>`: an API key first (cheap, synchronous), then, when a JWT
 *   issuer is configured and the token has the JWS compact shape, JWT verification;
 * - neither: `missing`. So is an `Authorization` header of another scheme (`Basic …`) or an empty
 *   `Bearer`: the gateway understands no such credential, and RFC 6750 §3.1 says a request using
 *   an unsupported method gets a challenge without an error code.
 *
 * Only JWT verification is asynchronous (it may fetch the issuer's keys); every other outcome is
 * decided at once and returned as an already-resolved promise.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { ApiKeys, type ApiKeysConfig } from './api-keys.js';
import { JwtVerifier, type JwtFailureReason, type JwtOptions } from './jwt.js';
import type { Principal } from './principal.js';

/** No credentials, more than one, an unknown key, or why a JWT was refused. */
export type AuthFailureReason = 'missing' | 'ambiguous-credentials' | 'invalid-key' | JwtFailureReason;

export type AuthResult = { readonly principal: Principal } | { readonly failure: AuthFailureReason };

export interface AuthOptions {
  apiKeys: ApiKeysConfig;
  jwt?: JwtOptions;
}

const REALM = 'a2a-gateway';
const BEARER = /^Bearer +(\S+) *$/i;
/** Three base64url segments: what a JWS in compact serialization looks like. */
const JWS_COMPACT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

export class Authenticator {
  /** Header names that carry client credentials (strip them before forwarding). */
  static readonly CREDENTIAL_HEADERS: readonly string[] = Object.freeze(['authorization', 'x-api-key']);

  private readonly apiKeys: ApiKeys;
  private readonly jwt: JwtVerifier | undefined;

  constructor(options: AuthOptions) {
    this.apiKeys = new ApiKeys(options.apiKeys);
    this.jwt = options.jwt === undefined ? undefined : new JwtVerifier(options.jwt);
  }

  /**
   * The caller's principal, or why not. Never rejects. `rawHeaders` (name, value, …, as sent) is
   * where a repeated credential header shows; without it only `headers` is looked at.
   */
  authenticate(headers: IncomingHttpHeaders, rawHeaders?: readonly string[]): Promise<AuthResult> {
    if (ambiguous(headers, rawHeaders)) return Promise.resolve({ failure: 'ambiguous-credentials' });
    const apiKey = headers['x-api-key'];
    if (typeof apiKey === 'string') return Promise.resolve(this.byApiKey(apiKey.trim()));
    const token = bearerToken(headers.authorization);
    if (token === undefined) return Promise.resolve({ failure: 'missing' });
    const principal = this.apiKeys.match(token);
    if (principal) return Promise.resolve({ principal });
    if (this.jwt && JWS_COMPACT.test(token)) return this.jwt.verify(token);
    return Promise.resolve({ failure: 'invalid-key' });
  }

  /** The `WWW-Authenticate` value for a 401 refusing a request for `failure`. */
  challenge(failure: AuthFailureReason): string {
    if (failure === 'missing') return `Bearer realm="${REALM}"`;
    if (failure === 'ambiguous-credentials') return `Bearer realm="${REALM}", error="invalid_request"`;
    return `Bearer realm="${REALM}", error="invalid_token"`;
  }

  private byApiKey(key: string): AuthResult {
    const principal = key === '' ? undefined : this.apiKeys.match(key);
    return principal ? { principal } : { failure: 'invalid-key' };
  }
}

/**
 * More than one credential header: both kinds, a kind the parsed headers hold as a list, or
 * (from the raw list) one named twice. Names are compared by length first: this runs on every
 * call with `auth` on.
 */
function ambiguous(headers: IncomingHttpHeaders, raw: readonly string[] | undefined): boolean {
  const apiKey = headers['x-api-key'];
  if (apiKey === undefined && headers.authorization === undefined) return false;
  if (apiKey !== undefined && (headers.authorization !== undefined || typeof apiKey !== 'string')) return true;
  if (raw === undefined) return false;
  let seen = 0;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    if (name.length !== 13 && name.length !== 9) continue;
    const lower = name.toLowerCase();
    if ((lower === 'authorization' || lower === 'x-api-key') && ++seen > 1) return true;
  }
  return false;
}

/** The token of an `Authorization: Bearer <token>` header (scheme case-insensitive, RFC 7235 §2.1). */
function bearerToken(authorization: string | undefined): string | undefined {
  if (typeof authorization !== 'string') return undefined;
  return BEARER.exec(authorization.trim())?.[1];
}
