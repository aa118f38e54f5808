/**
 * Where an agent's card-signature keys come from (`agents.{name}.cards.signature`): the inline
 * JWKS, `jwksUrl` — a URL the operator configured — or the `jku` a signature's protected header
 * names, only when `jku.allow` admits it (never any URL a card names: SSRF). A signature with an
 * admitted `jku` is checked with that set; one without, with the configured keys. A remote set is fetched by jose (`createRemoteJWKSet`: cached, refetched
 * on an unknown `kid` at most every 30 s) with a timeout and a size cap: the body is read as a
 * stream and the fetch aborted past `JWKS_MAX_BYTES`; a redirect is not followed (jose asks
 * `redirect: manual` and wants a 200).
 */
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  customFetch,
  type JSONWebKeySet,
  type FlattenedVerifyGetKey,
} from 'jose';
import type { CardSignatureConfig } from '../config/card-signature-schema.js';

/** A JWKS is a few keys: 64 KiB is plenty and bounds what a misbehaving key server costs. */
export const JWKS_MAX_BYTES = 64 * 1024;
const JWKS_TIMEOUT_MS = 5000;

/** `fetch`, with the body read under a byte cap (a larger JWKS fails the fetch). */
async function cappedFetch(url: string, options: Parameters<typeof fetch>[1]): Promise<Response> {
  const response = await fetch(url, options);
  const reader = response.body?.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const next = reader ? await reader.read() : { done: true as const, value: undefined };
    if (next.done) break;
    size += next.value.byteLength;
    if (size > JWKS_MAX_BYTES) {
      await reader?.cancel();
      throw new Error(`the JWKS at ${url} is larger than ${JWKS_MAX_BYTES} bytes`);
    }
    chunks.push(next.value);
  }
  return new Response(Buffer.concat(chunks), { status: response.status, headers: response.headers });
}

function remoteSet(url: string): FlattenedVerifyGetKey {
  return createRemoteJWKSet(new URL(url), {
    timeoutDuration: JWKS_TIMEOUT_MS,
    [customFetch]: cappedFetch,
  }) as unknown as FlattenedVerifyGetKey;
}

/** The configured keys: `jwksUrl`, else the inline `jwks`; none when only `jku` is given. */
function configuredSet(config: CardSignatureConfig): FlattenedVerifyGetKey | undefined {
  if (config.jwksUrl !== undefined) return remoteSet(config.jwksUrl);
  if (config.jwks !== undefined)
    return createLocalJWKSet(config.jwks as unknown as JSONWebKeySet) as unknown as FlattenedVerifyGetKey;
  return undefined;
}

/** Distinct `jku` sets kept per agent (each is one of `allow` or under one). */
const MAX_JKU_SETS = 8;

export function keySetOf(config: CardSignatureConfig): FlattenedVerifyGetKey {
  const configured = configuredSet(config);
  const allow = (config.jku?.allow ?? []).map((u) => new URL(u).href);
  const sets = new Map<string, FlattenedVerifyGetKey>();
  return (header, token) => {
    const jku = header?.jku;
    if (jku === undefined || allow.length === 0) {
      if (configured) return configured(header, token);
      throw new Error('the signature names no jku, and no other keys are configured');
    }
    const url = admittedJku(jku, allow);
    let set = sets.get(url);
    if (!set) {
      if (sets.size >= MAX_JKU_SETS) sets.delete(sets.keys().next().value!);
      sets.set(url, (set = remoteSet(url)));
    }
    return set(header, token);
  };
}

/** The `jku` as a URL, when it is one of `allow` or under one ending in `/` (after URL normalisation). */
export function admittedJku(jku: unknown, allow: readonly string[]): string {
  let href: string;
  try {
    href = new URL(String(jku)).href;
  } catch {
    throw new Error(`the signature's jku is not a URL`);
  }
  const ok = allow.some((a) => href === a || (a.endsWith('/') && href.startsWith(a)));
  if (!ok) throw new Error(`the signature's jku ${href} is not in cards.signature.jku.allow`);
  return href;
}
