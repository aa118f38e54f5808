/**
 * JWT bearer tokens for client authentication, verified with `jose`. The
 * gateway accepts tokens from one issuer, with the keys given one of three ways: a JWKS URL
 * (fetched on demand, cached, refreshed), one static public key (PEM SPKI or a JWK as JSON), or an
 * HS256 shared secret.
 *
 * The JWKS fetch is the gateway's own outbound request, triggered by unauthenticated callers, so
 * it is bounded: a timeout, a cooldown between refetches (a token with an unknown `kid` cannot
 * force more), a byte cap on the document (read as a stream and abandoned past the cap) and no
 * redirects. Anything that goes wrong while getting the key set is reported as
 * `jwks-unavailable`, apart from the set simply having no key for the token.
 *
 * A refusal is a short fixed reason for logs and metrics; it never carries the token or jose's
 * message (which can quote claim values).
 */
import { createPublicKey, type JsonWebKey } from 'node:crypto';
import {
  createRemoteJWKSet,
  customFetch,
  errors,
  jwtVerify,
  type FetchImplementation,
  type JWK,
  type JWTPayload,
  type JWTVerifyGetKey,
  type JWTVerifyOptions,
  type KeyInput,
} from 'jose';
import { GATEWAY_USER_AGENT } from '../version.js';
import type { Principal } from './principal.js';

export type JwtFailureReason =
  | 'expired'
  | 'invalid-audience'
  | 'invalid-issuer'
  | 'invalid-signature'
  | 'malformed'
  | 'jwks-unavailable'
  | 'no-principal';

export type JwtResult = { readonly principal: Principal } | { readonly failure: JwtFailureReason };

export interface JwksOptions {
  /** One fetch of the key set, headers and body. */
  timeoutMs: number;
  /** After a successful fetch, how long before a token with an unknown `kid` may trigger another. */
  cooldownMs: number;
  /** Keys are re-fetched when older than this. */
  cacheMaxAgeMs: number;
  /** Largest key-set document accepted. */
  maxBytes: number;
}

export interface JwtOptions {
  issuer: string | string[];
  audience: string | string[];
  /** Exactly one of `jwksUrl`, `key` and `secret`. */
  jwksUrl?: string;
  /** A PEM (SPKI) public key, or one public JWK as JSON. */
  key?: string;
  /** An HS256 shared secret. */
  secret?: string;
  /** Accepted `alg` values; default: those the key's type allows (`HS256` for `secret`). */
  algorithms?: string[];
  /** Tolerated clock difference for `exp` and `nbf`. */
  clockSkewMs: number;
  /** The claim naming the principal; default `sub`. */
  principalClaim?: string;
  /** The claim carrying groups (array of strings, or space-separated like `scope`); default `groups`. */
  groupsClaim?: string;
  jwks: JwksOptions;
}

/** Raised inside the key resolver when the key set could not be had (network, status, size, JSON). */
class JwksUnavailable extends Error {}

export class JwtVerifier {
  private readonly key: KeyInput | JWTVerifyGetKey;
  private readonly verifyOptions: JWTVerifyOptions;
  private readonly principalClaim: string;
  private readonly groupsClaim: string;

  constructor(options: JwtOptions) {
    const sources = [options.jwksUrl, options.key, options.secret].filter((s) => s !== undefined);
    if (sources.length !== 1) throw new Error('jwt: give exactly one of jwksUrl, key and secret');
    if (options.algorithms?.length === 0) throw new Error('jwt: algorithms must not be empty');
    this.key = keyFrom(options);
    this.verifyOptions = {
      issuer: options.issuer,
      audience: options.audience,
      clockTolerance: options.clockSkewMs / 1000,
      requiredClaims: ['exp'],
      algorithms: options.algorithms ?? (options.secret !== undefined ? ['HS256'] : undefined),
    };
    this.principalClaim = options.principalClaim ?? 'sub';
    this.groupsClaim = options.groupsClaim ?? 'groups';
  }

  /** The token's principal, or why it is refused. Never throws. */
  async verify(token: string): Promise<JwtResult> {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.key, this.verifyOptions));
    } catch (err) {
      return { failure: failureOf(err) };
    }
    const id = payload[this.principalClaim];
    if (typeof id !== 'string' || id === '') return { failure: 'no-principal' };
    const groups = groupsOf(payload[this.groupsClaim]);
    if (groups === undefined) return { failure: 'malformed' };
    return { principal: Object.freeze({ id, groups: Object.freeze(groups), via: 'jwt' }) };
  }
}

/** An array of strings as is; a space-separated string (OAuth `scope`) split; absent: none. */
function groupsOf(value: unknown): string[] | undefined {
  if (value === undefined || value === null) return [];
  if (typeof value === 'string') return value.split(' ').filter((g) => g !== '');
  if (Array.isArray(value) && value.every((g) => typeof g === 'string')) return [...(value as string[])];
  return undefined;
}

function keyFrom(options: JwtOptions): KeyInput | JWTVerifyGetKey {
  if (options.jwksUrl !== undefined) return remoteKeys(options.jwksUrl, options.jwks);
  if (options.key !== undefined) return staticKey(options.key);
  return new TextEncoder().encode(options.secret);
}

/** A PEM public key as a KeyObject, or a JWK as is (jose then honours its `alg` and `use`). */
function staticKey(text: string): KeyInput {
  const key = text.trim();
  if (!key.startsWith('{')) {
    if (key.includes('PRIVATE KEY')) throw new Error('jwt.key: this is a private key; give the public key');
    return createPublicKey({ key, format: 'pem' });
  }
  let jwk: JWK;
  try {
    jwk = JSON.parse(key) as JWK;
  } catch {
    throw new Error('jwt.key: neither a PEM key nor valid JWK JSON');
  }
  if (typeof jwk !== 'object' || jwk === null || Array.isArray(jwk) || jwk.kty === 'oct' || 'd' in jwk) {
    throw new Error('jwt.key: the JWK must be one public key (use `secret` for a shared secret)');
  }
  createPublicKey({ key: jwk as JsonWebKey, format: 'jwk' }); // throws if unusable
  return jwk;
}

/**
 * jose's remote key set, bounded, behind a resolver that turns every failure to get the set into
 * `JwksUnavailable`. Only "the set has no (single) key for this token" passes through as jose's own
 * error, which is the token's fault, not the key set's.
 */
function remoteKeys(url: string, jwks: JwksOptions): JWTVerifyGetKey {
  const set = createRemoteJWKSet(new URL(url), {
    timeoutDuration: jwks.timeoutMs,
    cooldownDuration: jwks.cooldownMs,
    cacheMaxAge: jwks.cacheMaxAgeMs,
    headers: { 'user-agent': GATEWAY_USER_AGENT },
    [customFetch]: cappedFetch(jwks.maxBytes),
  });
  return async (header, token) => {
    try {
      return await set(header, token);
    } catch (err) {
      if (err instanceof errors.JWKSNoMatchingKey || err instanceof errors.JWKSMultipleMatchingKeys) throw err;
      if (err instanceof errors.JOSENotSupported) throw err; // the token's `alg` has no place in a key set
      throw new JwksUnavailable('JWKS unavailable', { cause: err });
    }
  };
}

/** `fetch` that refuses redirects and any status but 200, and reads at most `maxBytes` of body. */
function cappedFetch(maxBytes: number): FetchImplementation {
  return async (url, options) => {
    const response = await fetch(url, { ...options, redirect: 'manual' });
    if (response.status !== 200) {
      await response.body?.cancel().catch(() => {});
      throw new Error(`JWKS answered HTTP ${response.status}`);
    }
    const body = await readJwksBody(response, maxBytes);
    return new Response(body, { status: 200, headers: { 'content-type': 'application/json' } });
  };
}

async function readJwksBody(response: Response, maxBytes: number): Promise<Uint8Array> {
  const declared = response.headers.get('content-length');
  if (declared !== null && Number(declared) > maxBytes) {
    await response.body?.cancel().catch(() => {});
    throw new Error('JWKS larger than jwks.maxBytes');
  }
  if (response.body === null) return new Uint8Array();
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      throw new Error('JWKS larger than jwks.maxBytes');
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, size);
}

/** jose's error, as one of the fixed reasons. */
function failureOf(err: unknown): JwtFailureReason {
  if (err instanceof JwksUnavailable) return 'jwks-unavailable';
  if (!(err instanceof errors.JOSEError)) return 'invalid-signature'; // e.g. a key of the wrong type for the `alg`
  switch (err.code) {
    case 'ERR_JWT_EXPIRED':
      return 'expired';
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED':
      return claimFailure((err as errors.JWTClaimValidationFailed).claim);
    case 'ERR_JWS_INVALID':
    case 'ERR_JWT_INVALID':
      return 'malformed';
    case 'ERR_JWKS_TIMEOUT':
    case 'ERR_JWKS_INVALID':
    case 'ERR_JOSE_GENERIC':
      return 'jwks-unavailable';
    default:
      // ERR_JWS_SIGNATURE_VERIFICATION_FAILED, ERR_JWKS_NO_MATCHING_KEY, ERR_JWKS_MULTIPLE_MATCHING_KEYS,
      // ERR_JOSE_ALG_NOT_ALLOWED, ERR_JOSE_NOT_SUPPORTED: no trusted key vouches for this token.
      return 'invalid-signature';
  }
}

function claimFailure(claim: string): JwtFailureReason {
  if (claim === 'aud') return 'invalid-audience';
  if (claim === 'iss') return 'invalid-issuer';
  if (claim === 'nbf') return 'expired'; // not yet valid: outside its validity window, like an expired one
  return 'malformed'; // `exp` missing or not a number, a bad `iat`
}
