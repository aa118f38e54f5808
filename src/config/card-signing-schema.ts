/**
 * `cards.signing`: the gateway's own key for the cards it serves (A2A spec §8.4; docs/security.md
 * "Signed agent cards"). The card a client receives has had its URLs rewritten, so the agent's
 * signature no longer holds; with a key here the gateway signs the card it serves instead.
 * `key` is a private JWK, inline or as a JSON string (`${ENV}` substitution, src/config/load.ts,
 * keeps it out of the file). Checked at load: a private key whose type fits `alg`.
 */
import { createPrivateKey, createPublicKey, sign, verify, type JsonWebKey } from 'node:crypto';
import { z } from 'zod';

/** `alg` → the JWK that signs with it (RFC 7518 §3.4, RFC 8037 §3.1). */
const KEY_TYPES = { ES256: { kty: 'EC', crv: 'P-256' }, EdDSA: { kty: 'OKP', crv: 'Ed25519' } } as const;

/** A JWK object, or its JSON text (from `${ENV}`). */
const jwk = z.unknown().transform((value, ctx): Record<string, unknown> => {
  let parsed: unknown = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value);
    } catch {
      parsed = undefined;
    }
  }
  if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  // The value may be the secret itself: never echo it.
  ctx.addIssue({ code: 'custom', message: 'cards.signing.key must be a JWK object or its JSON text; it is not JSON' });
  return z.NEVER;
});

/**
 * node:crypto imports an EC JWK whose `d` does not belong to its `x`/`y`: a signature made with
 * the private part must verify with the public part the JWK states (the one the JWKS publishes).
 */
function signsAndVerifies(alg: 'ES256' | 'EdDSA', key: Record<string, unknown>): boolean {
  try {
    const { d: _secret, ...publicPart } = key;
    const digest = alg === 'ES256' ? 'sha256' : null;
    const probe = Buffer.from('a2a-gateway cards.signing check');
    const signature = sign(digest, probe, createPrivateKey({ key: key as JsonWebKey, format: 'jwk' }));
    return verify(digest, probe, createPublicKey({ key: publicPart as JsonWebKey, format: 'jwk' }), signature);
  } catch {
    return false;
  }
}

export const cardSigningSchema = z
  .object({
    key: jwk,
    alg: z.enum(['ES256', 'EdDSA']),
    /** The `kid` of the gateway's signatures and of its key in `/.well-known/jwks.json`. */
    kid: z.string().min(1),
    /** A signed card that needed no rewrite keeps the agent's signatures instead of the gateway's. */
    passThroughUnchanged: z.boolean().default(false),
  })
  .strict()
  .superRefine((signing, ctx) => {
    const want = KEY_TYPES[signing.alg];
    const key = signing.key;
    if (typeof key['d'] !== 'string') {
      ctx.addIssue({ code: 'custom', path: ['key'], message: 'cards.signing.key must be a private JWK (it has no d)' });
      return;
    }
    if (key['kty'] !== want.kty || key['crv'] !== want.crv) {
      ctx.addIssue({
        code: 'custom',
        path: ['key'],
        message: `alg ${signing.alg} signs with a ${want.kty} ${want.crv} key; this key is ${String(key['kty'])} ${String(key['crv'])}`,
      });
      return;
    }
    if (!signsAndVerifies(signing.alg, key))
      ctx.addIssue({ code: 'custom', path: ['key'], message: 'cards.signing.key is not a usable private JWK' });
  });

export type CardSigningConfig = z.infer<typeof cardSigningSchema>;
