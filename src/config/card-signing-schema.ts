/**
 * `cards.signing`: the gateway's own key for the cards it serves (A2A spec §8.4; docs/security.md
 * "Signed agent cards"). The card a client receives has had its URLs rewritten, so the agent's
 * signature no longer holds; with a key here the gateway signs the card it serves instead.
 * `key` is a private JWK, inline or as a JSON string (`${ENV}` substitution, src/config/load.ts,
 * keeps it out of the file). Checked at load: a private key whose type fits `alg`.
 */
import { createPrivateKey, createPublicKey, sign, verify, type JsonWebKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { z } from 'zod';

/** `alg` → the JWK that signs with it (RFC 7518 §3.4, RFC 8037 §3.1). */
const KEY_TYPES = { ES256: { kty: 'EC', crv: 'P-256' }, EdDSA: { kty: 'OKP', crv: 'Ed25519' } } as const;

/** A JWK object, its JSON text (from `${ENV}` or `keyFile`), or a PEM private key (`keyFile`); else undefined. */
function jwkOf(value: unknown): Record<string, unknown> | undefined {
  let parsed: unknown = value;
  if (typeof value === 'string' && value.trimStart().startsWith('-----BEGIN')) {
    try {
      return createPrivateKey(value).export({ format: 'jwk' }) as Record<string, unknown>;
    } catch {
      return undefined;
    }
  }
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value);
    } catch {
      parsed = undefined;
    }
  }
  return parsed && typeof parsed === 'object' && !Array.isArray(parsed)
    ? (parsed as Record<string, unknown>)
    : undefined;
}

/** `key`, or the contents of `keyFile` (read at load and at each reload; relative to the working directory). */
function resolveKey(
  signing: { key?: unknown; keyFile?: string | undefined },
  ctx: z.RefinementCtx,
): Record<string, unknown> {
  if ((signing.key === undefined) === (signing.keyFile === undefined)) {
    ctx.addIssue({ code: 'custom', message: 'give cards.signing exactly one of key and keyFile' });
    return z.NEVER;
  }
  let value = signing.key;
  if (signing.keyFile !== undefined) {
    try {
      value = readFileSync(signing.keyFile, 'utf8');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? 'unreadable';
      ctx.addIssue({ code: 'custom', path: ['keyFile'], message: `cannot read ${signing.keyFile}: ${code}` });
      return z.NEVER;
    }
  }
  const jwk = jwkOf(value);
  if (jwk) return jwk;
  // The value may be the secret itself: never echo it.
  ctx.addIssue({
    code: 'custom',
    path: [signing.keyFile === undefined ? 'key' : 'keyFile'],
    message: 'cards.signing key must be a JWK (object or JSON text) or, in keyFile, a PEM private key; it is neither',
  });
  return z.NEVER;
}

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
    key: z.unknown().optional(),
    /** A file holding the private JWK (JSON) or a PEM private key. */
    keyFile: z.string().min(1).optional(),
    alg: z.enum(['ES256', 'EdDSA']),
    /** The `kid` of the gateway's signatures and of its key in `/.well-known/jwks.json`. */
    kid: z.string().min(1),
    /** A signed card that needed no rewrite keeps the agent's signatures instead of the gateway's. */
    passThroughUnchanged: z.boolean().default(false),
  })
  .strict()
  .transform((signing, ctx) => {
    const { keyFile: _file, ...rest } = signing;
    return { ...rest, key: resolveKey(signing, ctx) };
  })
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
