/**
 * The gateway's signature on the cards it serves (A2A spec §8.4; docs/security.md "Signed agent
 * cards"): a flattened JWS with a detached payload, `protected` = {alg, kid, typ: "JOSE"}, over
 * the card without `signatures` in the two forms src/cards/signature.ts accepts — plain RFC 8785
 * JCS, and JCS with proto defaults left out (what the @a2a-js/sdk verifier computes) when that
 * differs — so a verifier of either kind finds one that holds. Signing is synchronous
 * (node:crypto) so card rendering (serve.ts) stays synchronous; verifiers use jose.
 * The private key never leaves this module; `jwks` is the public part only.
 */
import { createPrivateKey, createPublicKey, sign, type KeyObject } from 'node:crypto';
import type { CardSigningConfig } from '../config/card-signing-schema.js';
import { cardPayload } from './signature.js';

export interface CardSignatureEntry {
  readonly protected: string;
  readonly signature: string;
}

export interface CardSigner {
  /** Signature entries for `card` (its own `signatures` are ignored). */
  sign(card: Record<string, unknown>): CardSignatureEntry[];
  /** `/.well-known/jwks.json`: the public key only. */
  readonly jwks: { readonly keys: readonly Record<string, unknown>[] };
  readonly passThroughUnchanged: boolean;
}

function signBytes(alg: CardSigningConfig['alg'], key: KeyObject, input: Buffer): Buffer {
  // JWS ES256 is the raw r||s pair (RFC 7518 §3.4), not DER.
  return alg === 'ES256' ? sign('sha256', input, { key, dsaEncoding: 'ieee-p1363' }) : sign(null, input, key);
}

export function cardSignerOf(config: CardSigningConfig): CardSigner {
  const key = createPrivateKey({ key: config.key as import('node:crypto').JsonWebKey, format: 'jwk' });
  const publicJwk = createPublicKey(key).export({ format: 'jwk' });
  const header = Buffer.from(JSON.stringify({ alg: config.alg, kid: config.kid, typ: 'JOSE' })).toString('base64url');
  const entry = (payload: string): CardSignatureEntry => ({
    protected: header,
    signature: signBytes(config.alg, key, Buffer.from(`${header}.${payload}`, 'ascii')).toString('base64url'),
  });
  return {
    sign(card) {
      const plain = cardPayload(card, 'jcs');
      const normalized = cardPayload(card, 'jcs-without-defaults');
      return normalized === plain ? [entry(plain)] : [entry(plain), entry(normalized)];
    },
    jwks: { keys: [{ ...publicJwk, kid: config.kid, alg: config.alg, use: 'sig' }] },
    passThroughUnchanged: config.passThroughUnchanged,
  };
}
