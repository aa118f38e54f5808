/**
 * `agents.{name}.cards.signature`: the keys an agent's card signatures are checked with (A2A spec
 * §8.4 "Agent Card Signing"; docs/security.md "Signed agent cards"): inline as a JWKS, from a
 * configured `jwksUrl`, or from the `jku` a signature names — only a `jku` under one of
 * `jku.allow`: fetching any URL a card names would let any agent make the gateway request any
 * address (SSRF). Only public keys are accepted: a private member
 * (`d`, RSA's primes) or a symmetric key (`kty: oct`) is refused, so no secret sits in this part
 * of the config, which the admin API and logs may show.
 */
import { createPublicKey } from 'node:crypto';
import { z } from 'zod';
import { httpUrl, httpUrlAsWritten } from './fields.js';

const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'] as const;

const publicJwk = z.record(z.string(), z.unknown()).superRefine((jwk, ctx) => {
  const secret = PRIVATE_MEMBERS.filter((m) => m in jwk);
  if (jwk['kty'] === 'oct' || secret.length > 0) {
    ctx.addIssue({
      code: 'custom',
      message: `a signature key must be a public key: this JWK has private or symmetric members (${secret.join(', ') || 'kty oct'}); give only the public part`,
    });
    return;
  }
  try {
    // Synchronous parse with node:crypto: a JWK jose could not import fails here, at load.
    createPublicKey({ key: jwk as import('node:crypto').JsonWebKey, format: 'jwk' });
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: `not a usable public JWK: ${(err as Error).message}` });
  }
});

export const cardSignatureSchema = z
  .object({
    /** The agent's public keys (RFC 7517 JWK Set); a signature's `kid` picks the key. */
    jwks: z
      .object({ keys: z.array(publicJwk).min(1) })
      .strict()
      .optional(),
    /** Or where the gateway fetches that JWKS (src/cards/jwks-source.ts): configured here, never taken from a card. */
    jwksUrl: httpUrl.optional(),
    /**
     * Keys from the `jku` (JWK Set URL) in a signature's protected header, fetched only when it is
     * one of `allow` or under one that ends in `/` (src/cards/jwks-source.ts).
     */
    jku: z
      .object({ allow: z.array(httpUrlAsWritten).min(1) })
      .strict()
      .optional(),
    /** Refuse the card (the agent is not ready; its card route answers 502) unless a signature verifies. */
    require: z.boolean().default(false),
  })
  .strict()
  .refine((s) => !(s.jwks !== undefined && s.jwksUrl !== undefined), {
    message: 'give the agent keys as one of jwks (inline) or jwksUrl, not both',
  })
  .refine((s) => s.jwks !== undefined || s.jwksUrl !== undefined || s.jku !== undefined, {
    message: 'give the agent keys: jwks (inline), jwksUrl, or jku.allow (the key URLs its signatures may name)',
  });

export type CardSignatureConfig = z.infer<typeof cardSignatureSchema>;

/** `agents.{name}.cards`: per-agent card settings. */
export const agentCardsSchema = z.object({ signature: cardSignatureSchema.optional() }).strict().prefault({});
