/**
 * Checks an agent card's JWS signatures (A2A spec §8.4 "Agent Card Signing"; wire-reference
 * §3): each entry of `signatures` is a flattened JWS (`protected`, `signature`, optional
 * `header`) whose payload is detached: the card without its `signatures` member, canonicalised
 * with RFC 8785 JCS (the `canonicalize` package, by the RFC's author, not a hand-written
 * serialiser). The card is valid when at least one signature verifies with a configured key
 * (src/config/card-signature-schema.ts): inline, a configured URL, or the `jku` a signature names
 * when `jku.allow` admits it (src/cards/jwks-source.ts; any other `jku` is never fetched: SSRF).
 * Runs once per fetched card (src/cards/cache.ts), never per request.
 *
 * Two payload forms are tried: the JCS of the card as served, then the JCS with proto-default
 * members left out (wire-reference §3: "proto-default fields removed"), which is what the
 * @a2a-js/sdk 1.3.0 signer signs (`canonicalizeAgentCard`: a protobuf round trip, so `[]`,
 * `{}`, `""`, `false` and `0` members are absent). The gateway has no AgentCard schema, so the
 * second form drops every such member and keeps fields the schema does not know: it covers more
 * than the SDK's form, never less; a card whose signer dropped unknown fields does not verify.
 */
import canonicalize from 'canonicalize';
import { flattenedVerify, type FlattenedVerifyGetKey } from 'jose';

/** `unsigned`: no signatures; `invalid`: none verifies with a configured key (or one is malformed). */
export type SignatureResult = 'valid' | 'invalid' | 'unsigned';

export interface SignatureCheck {
  readonly result: SignatureResult;
  /** The `kid` of the signature that verified. */
  readonly kid?: string;
  /** The payload form it verified over. */
  readonly form?: PayloadForm;
  /** Why the card is not valid, for logs and the admin catalog (no key material). */
  readonly why?: string;
}

/** Which canonical form a signature verified over (see the header). */
export type PayloadForm = 'jcs' | 'jcs-without-defaults';

/**
 * Members with explicit presence in the v1.0 AgentCard proto (message fields and `optional`
 * scalars): kept when set, even to `{}`, `false` or `""` — as the SDK's generated `toJSON`
 * does (node_modules/@a2a-js/sdk/dist/index.js, the `!== void 0` checks).
 */
const PRESENT_WHEN_SET: ReadonlySet<string> = new Set([
  'capabilities',
  'provider',
  'documentationUrl',
  'iconUrl',
  'streaming',
  'pushNotifications',
  'extendedAgentCard',
  'params',
  'flows',
  'authentication',
]);

function isDefault(value: unknown): boolean {
  if (value === '' || value === false || value === 0) return true;
  if (Array.isArray(value)) return value.length === 0;
  return value !== null && typeof value === 'object' && Object.keys(value).length === 0;
}

/** The value with members holding a proto default (`""`, `false`, `0`, `[]`, `{}`) left out, at every depth. */
function withoutDefaults(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutDefaults);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) {
    const kept = withoutDefaults(member);
    if (PRESENT_WHEN_SET.has(key) || !isDefault(kept)) out[key] = kept;
  }
  return out;
}

/** The detached payload as a JWS carries it: base64url of the JCS of the card minus `signatures`. */
export function cardPayload(card: Record<string, unknown>, form: PayloadForm = 'jcs'): string {
  const { signatures: _dropped, ...unsigned } = card;
  const text = canonicalize(form === 'jcs' ? unsigned : withoutDefaults(unsigned));
  if (text === undefined) throw new Error('the card has no canonical form');
  return Buffer.from(text, 'utf8').toString('base64url');
}

function entries(card: Record<string, unknown>): unknown[] | undefined {
  const list = card['signatures'];
  return Array.isArray(list) && list.length > 0 ? list : undefined;
}

export function cardVerifier(keys: FlattenedVerifyGetKey): (card: Record<string, unknown>) => Promise<SignatureCheck> {
  return async (card) => {
    const list = entries(card);
    if (!list) return { result: 'unsigned', why: 'the card has no signatures' };
    const whys: string[] = [];
    for (const form of ['jcs', 'jcs-without-defaults'] as const) {
      let payload: string;
      try {
        payload = cardPayload(card, form);
      } catch (err) {
        return { result: 'invalid', why: (err as Error).message };
      }
      for (const [i, entry] of list.entries()) {
        const outcome = await verifyOne(entry, payload, keys);
        if (typeof outcome !== 'string') return { result: 'valid', form, ...outcome };
        if (form === 'jcs') whys.push(`signatures[${i}]: ${outcome}`);
      }
    }
    return { result: 'invalid', why: whys.join('; ') };
  };
}

/** One `signatures` entry over `payload`: the kid that verified, or why it did not. */
async function verifyOne(
  entry: unknown,
  payload: string,
  keys: FlattenedVerifyGetKey,
): Promise<{ kid?: string } | string> {
  const jws = (entry ?? {}) as { protected?: unknown; signature?: unknown; header?: unknown };
  if (typeof jws.protected !== 'string' || typeof jws.signature !== 'string') return 'lacks protected or signature';
  const header = jws.header && typeof jws.header === 'object' ? (jws.header as Record<string, unknown>) : undefined;
  try {
    const verified = await flattenedVerify(
      { protected: jws.protected, signature: jws.signature, payload, ...(header ? { header } : {}) },
      keys,
    );
    const kid = verified.protectedHeader?.kid ?? verified.unprotectedHeader?.kid;
    return kid === undefined ? {} : { kid };
  } catch (err) {
    return (err as Error).message;
  }
}
