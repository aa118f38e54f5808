/**
 * The gateway's signature on the cards it serves (`cards.signing`; docs/security.md "Signed agent
 * cards"), over real sockets: an @a2a-js/sdk 1.3.0 agent, a gateway with a key the test
 * generates, and the served card checked by jose against the gateway's published JWKS and by the
 * SDK's own verifier.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import canonicalize from 'canonicalize';
import { createLocalJWKSet, exportJWK, flattenedVerify, generateKeyPair, type JWK } from 'jose';
import { verifyAgentCardSignature, type AgentCard } from '@a2a-js/sdk';
import { startPeerV1, type PeerV1 } from '../peers/peer-v1.js';
import { clientV1 } from '../peers/clients.js';
import { startTestGateway } from '../support/gateway.js';
import type { RunningGateway } from '../../src/gateway/gateway.js';
import { renderCard } from '../../src/cards/serve.js';
import { cardSignerOf } from '../../src/cards/signer.js';
import type { CachedCard } from '../../src/cards/cache.js';

const CARD = '/.well-known/agent-card.json';
let peer: PeerV1;
let signing: RunningGateway;
let plain: RunningGateway;
let privateJwk: JWK;

beforeAll(async () => {
  const pair = await generateKeyPair('ES256', { extractable: true });
  privateJwk = await exportJWK(pair.privateKey);
  peer = await startPeerV1({ extendedCard: true });
  const agents = { a: { url: peer.url } };
  signing = await startTestGateway(agents, {
    cards: { retry: '200ms', signing: { key: privateJwk, alg: 'ES256', kid: 'gw-1' } },
  });
  plain = await startTestGateway(agents);
});

afterAll(async () => {
  await Promise.all([signing?.close(), plain?.close()]);
  await peer?.close();
});

async function served(gw: RunningGateway): Promise<Record<string, any>> {
  const res = await fetch(`${gw.url}/agents/a${CARD}`, { headers: { 'a2a-version': '1.0' } });
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, any>;
}

describe('cards.signing', () => {
  it('publishes the public key only at /.well-known/jwks.json', async () => {
    const jwks = (await (await fetch(`${signing.url}/.well-known/jwks.json`)).json()) as { keys: JWK[] };
    expect(jwks.keys).toHaveLength(1);
    expect(jwks.keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', kid: 'gw-1', x: privateJwk.x, y: privateJwk.y });
    expect(jwks.keys[0]).not.toHaveProperty('d');
    expect(JSON.stringify(jwks)).not.toContain(privateJwk.d!);
  });

  it('signs the rewritten card: jose verifies it with the published JWKS over JCS of the card minus signatures', async () => {
    const card = await served(signing);
    expect(card['supportedInterfaces'][0].url).toContain(`${signing.url}/agents/a/`);
    const jwks = (await (await fetch(`${signing.url}/.well-known/jwks.json`)).json()) as { keys: JWK[] };
    const { signatures, ...unsigned } = card;
    const payload = Buffer.from(canonicalize(unsigned)!).toString('base64url');
    const verified = await flattenedVerify({ ...signatures[0], payload }, createLocalJWKSet(jwks));
    expect(verified.protectedHeader).toMatchObject({ alg: 'ES256', kid: 'gw-1', typ: 'JOSE' });
  });

  it("is accepted by the SDK's verifier (verifyAgentCardSignature) given the published key", async () => {
    const card = await served(signing);
    const jwks = (await (await fetch(`${signing.url}/.well-known/jwks.json`)).json()) as { keys: JWK[] };
    const verify = verifyAgentCardSignature(async (kid) => jwks.keys.find((k) => k.kid === kid)!);
    await expect(verify(card as AgentCard)).resolves.toBeUndefined();
    // And refuses it once changed: the check is real.
    await expect(verify({ ...card, name: 'changed' } as AgentCard)).rejects.toThrow();
  });

  it('without signing: the rewritten card carries no signatures and there is no JWKS', async () => {
    expect(await served(plain)).not.toHaveProperty('signatures.0');
    expect((await fetch(`${plain.url}/.well-known/jwks.json`)).status).toBe(404);
  });
});

describe('cards.signing, extended card', () => {
  /** jose over JCS of the card minus signatures, with the gateway's published JWKS. */
  async function verifyWithJwks(card: Record<string, any>) {
    const jwks = (await (await fetch(`${signing.url}/.well-known/jwks.json`)).json()) as { keys: JWK[] };
    const { signatures, ...unsigned } = card;
    const payload = Buffer.from(canonicalize(unsigned)!).toString('base64url');
    return flattenedVerify({ ...signatures[0], payload }, createLocalJWKSet(jwks));
  }

  it('signs the JSON-RPC GetExtendedAgentCard result', async () => {
    const res = await fetch(`${signing.url}/agents/a/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 'x1', method: 'GetExtendedAgentCard' }),
    });
    const { result } = (await res.json()) as { result: Record<string, any> };
    expect(result['name']).toMatch(/extended/);
    expect(result['supportedInterfaces'][0].url).toContain(`${signing.url}/agents/a/`);
    expect((await verifyWithJwks(result)).protectedHeader?.kid).toBe('gw-1');
  });

  it('signs the REST /extendedAgentCard body', async () => {
    const res = await fetch(`${signing.url}/agents/a/a2a/rest/extendedAgentCard`, {
      headers: { 'a2a-version': '1.0' },
    });
    const card = (await res.json()) as Record<string, any>;
    expect(Number(res.headers.get('content-length'))).toBe(Buffer.byteLength(JSON.stringify(card)));
    expect((await verifyWithJwks(card)).protectedHeader?.kid).toBe('gw-1');
  });
});

describe('cards.signing, SDK 1.3.0 client', () => {
  it.each(['JSONRPC', 'HTTP+JSON'] as const)(
    'over %s, client.getAgentCard with a signature verifier accepts the extended card the gateway signed',
    async (transport) => {
      const client = await clientV1(`${signing.url}/agents/a/`, { transport });
      const jwks = (await (await fetch(`${signing.url}/.well-known/jwks.json`)).json()) as { keys: JWK[] };
      let asked = '';
      const verifier = verifyAgentCardSignature(async (kid) => {
        asked = kid;
        return jwks.keys.find((k) => k.kid === kid)!;
      });
      const card = await client.getAgentCard(undefined, verifier);
      expect(card.name).toMatch(/extended/);
      expect(asked).toBe('gw-1');
    },
  );
});

describe('passThroughUnchanged (renderCard)', () => {
  const agentSigned = { protected: 'eyJhbGciOiJFUzI1NiJ9', signature: 'c2ln' };
  // A card whose interface lives elsewhere than the agent's URL: no rewrite, the agent's signature holds.
  const elsewhere = {
    name: 'x',
    supportedInterfaces: [{ url: 'https://elsewhere.example/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    signatures: [agentSigned],
  };
  const cached = (card: Record<string, unknown>): CachedCard => {
    const body = Buffer.from(JSON.stringify(card));
    return {
      status: 200,
      body,
      card,
      contentType: 'application/json',
      cacheControl: undefined,
      vary: undefined,
      etag: undefined,
      fetchedAt: 0,
      from: 'http://127.0.0.1:1',
      freshFor: 0,
    };
  };

  it('keeps the agent signature of an unchanged card with passThroughUnchanged, replaces it without', () => {
    const key = privateJwk as Record<string, unknown>;
    const through = cardSignerOf({ key, alg: 'ES256', kid: 'gw-1', passThroughUnchanged: true });
    const replace = cardSignerOf({ key, alg: 'ES256', kid: 'gw-1', passThroughUnchanged: false });
    const kept = JSON.parse(
      renderCard(
        cached(elsewhere),
        'http://127.0.0.1:1',
        'http://gw/agents/x',
        undefined,
        undefined,
        through,
      ).body.toString(),
    );
    expect(kept.signatures).toEqual([agentSigned]);
    const replaced = JSON.parse(
      renderCard(
        cached(elsewhere),
        'http://127.0.0.1:1',
        'http://gw/agents/x',
        undefined,
        undefined,
        replace,
      ).body.toString(),
    );
    expect(replaced.signatures[0].protected).not.toBe(agentSigned.protected);
  });
});
