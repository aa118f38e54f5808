/**
 * Where an agent's card-signature keys come from (`agents.{name}.cards.signature`): the inline
 * JWKS, or `jwksUrl` — a URL the operator configured, never one a card names (SSRF; the `jku`
 * header is ignored). The remote set is fetched by jose (`createRemoteJWKSet`: cached, refetched
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

export function keySetOf(config: CardSignatureConfig): FlattenedVerifyGetKey {
  if (config.jwksUrl !== undefined) {
    return createRemoteJWKSet(new URL(config.jwksUrl), {
      timeoutDuration: JWKS_TIMEOUT_MS,
      [customFetch]: cappedFetch,
    }) as unknown as FlattenedVerifyGetKey;
  }
  return createLocalJWKSet(config.jwks as unknown as JSONWebKeySet) as unknown as FlattenedVerifyGetKey;
}
