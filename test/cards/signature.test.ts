/**
 * Agent card signatures (A2A spec §8.4; docs/security.md "Signed agent cards") over real
 * sockets: @a2a-js/sdk 1.3.0 agents whose cards the test signs with keys it generates, a gateway
 * holding the public keys, and what the gateway says of each card (admin catalog, metric) and
 * whether it serves it (`require`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import canonicalize from 'canonicalize';
import { exportJWK, FlattenedSign, generateKeyPair, type CryptoKey, type JWK } from 'jose';
import { generateAgentCardSignature, type AgentCard } from '@a2a-js/sdk';

type AgentCardSignature = AgentCard['signatures'][number];
import { startPeerV1, type PeerV1 } from '../peers/peer-v1.js';
import { startTestGateway } from '../support/gateway.js';
import type { RunningGateway } from '../../src/gateway/gateway.js';

const CARD = '/.well-known/agent-card.json';

/** What the agent serves to a 1.0 client (the card the gateway fetches and checks). */
async function servedCard(peer: PeerV1): Promise<Record<string, unknown>> {
  const res = await fetch(`${peer.url}${CARD}`, { headers: { 'a2a-version': '1.0' } });
  return (await res.json()) as Record<string, unknown>;
}

/** A detached flattened JWS over JCS(card minus signatures), made with jose directly. */
async function sign(card: Record<string, unknown>, key: CryptoKey, kid: string, jku?: string) {
  const { signatures: _s, ...unsigned } = card;
  const jws = await new FlattenedSign(new TextEncoder().encode(canonicalize(unsigned)))
    .setProtectedHeader({ alg: 'ES256', kid, typ: 'JOSE', ...(jku ? { jku } : {}) })
    .sign(key);
  // The SDK's type has `header` required; on the wire it is optional (wire-reference §3).
  return { protected: jws.protected!, signature: jws.signature } as AgentCardSignature;
}

let agentKey: { publicKey: CryptoKey; privateKey: CryptoKey };
let otherKey: { publicKey: CryptoKey; privateKey: CryptoKey };
let publicJwk: JWK;
const peers: Record<string, PeerV1> = {};
let gateway: RunningGateway;
let strict: RunningGateway;
let keyServer: Server;

/** A JWKS server on loopback: `/jwks.json` the agent's key, `/huge.json` past the 64 KiB cap. */
async function startKeyServer(jwks: () => string): Promise<string> {
  keyServer = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(req.url === '/huge.json' ? JSON.stringify({ keys: [], pad: 'x'.repeat(70 * 1024) }) : jwks());
  });
  await new Promise<void>((resolve) => keyServer.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(keyServer.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  agentKey = await generateKeyPair('ES256', { extractable: true });
  otherKey = await generateKeyPair('ES256', { extractable: true });
  publicJwk = { ...(await exportJWK(agentKey.publicKey)), kid: 'agent-1', alg: 'ES256', use: 'sig' };
  for (const name of ['signed', 'sdkSigned', 'tampered', 'wrongKey', 'unsigned', 'jkuSigned']) {
    peers[name] = await startPeerV1();
  }

  peers['signed']!.card.signatures = [await sign(await servedCard(peers['signed']!), agentKey.privateKey, 'agent-1')];
  const sdkSigner = generateAgentCardSignature(agentKey.privateKey, { alg: 'ES256', kid: 'agent-1', typ: 'JOSE' });
  peers['sdkSigned']!.card.signatures = (await sdkSigner(peers['sdkSigned']!.card)).signatures;
  // Signed, then changed: the signature no longer covers what is served.
  peers['tampered']!.card.signatures = [
    await sign(await servedCard(peers['tampered']!), agentKey.privateKey, 'agent-1'),
  ];
  peers['tampered']!.card.description = 'changed after signing';
  peers['wrongKey']!.card.signatures = [
    await sign(await servedCard(peers['wrongKey']!), otherKey.privateKey, 'agent-1'),
  ];

  const signature = { jwks: { keys: [publicJwk] } };
  const keys = await startKeyServer(() => JSON.stringify({ keys: [publicJwk] }));
  // Signed naming its key set by URL (the protected header's `jku`, RFC 7515 §4.1.2).
  const jkuCard = await servedCard(peers['jkuSigned']!);
  peers['jkuSigned']!.card.signatures = [await sign(jkuCard, agentKey.privateKey, 'agent-1', `${keys}/jwks.json`)];
  const agents: Record<string, { url: string; cards: unknown }> = Object.fromEntries(
    Object.entries(peers).map(([name, peer]) => [name, { url: peer.url, cards: { signature } }]),
  );
  agents['remote'] = { url: peers['signed']!.url, cards: { signature: { jwksUrl: `${keys}/jwks.json` } } };
  agents['remoteHuge'] = { url: peers['signed']!.url, cards: { signature: { jwksUrl: `${keys}/huge.json` } } };
  const jkuPeer = peers['jkuSigned']!.url;
  agents['jkuAllowed'] = { url: jkuPeer, cards: { signature: { jku: { allow: [`${keys}/`] } } } };
  agents['jkuNotAllowed'] = { url: jkuPeer, cards: { signature: { jku: { allow: ['https://keys.example.com/'] } } } };
  agents['jkuSimilar'] = { url: jkuPeer, cards: { signature: { jku: { allow: [`${keys}/jwks`] } } } };
  delete agents['jkuSigned'];
  gateway = await startTestGateway(agents);
  strict = await startTestGateway(
    Object.fromEntries(
      ['signed', 'tampered'].map((name) => [
        name,
        { url: peers[name]!.url, cards: { signature: { ...signature, require: true } } },
      ]),
    ),
  );
});

afterAll(async () => {
  await Promise.all([gateway?.close(), strict?.close()]);
  await Promise.all(Object.values(peers).map((p) => p.close()));
  await new Promise((resolve) => keyServer?.close(resolve));
});

async function catalog(gw: RunningGateway): Promise<Record<string, Record<string, any>>> {
  const { agents } = (await (await fetch(`${gw.adminUrl}/agents`)).json()) as { agents: Array<Record<string, any>> };
  return Object.fromEntries(agents.map((a) => [a.name, a]));
}

describe('card signature verification', () => {
  it('the agent serves the signatures the test added (the SDK serves its card object)', async () => {
    expect((await servedCard(peers['signed']!))['signatures']).toHaveLength(1);
  });

  it('says valid for a card signed over its JCS, with the kid that verified', async () => {
    const agents = await catalog(gateway);
    expect(agents['signed']!.cardSignature).toEqual({ result: 'valid', kid: 'agent-1', form: 'jcs' });
  });

  it('says valid for a card signed with the SDK signer (generateAgentCardSignature)', async () => {
    expect((await catalog(gateway))['sdkSigned']!.cardSignature).toMatchObject({
      result: 'valid',
      form: 'jcs-without-defaults',
    });
  });

  it('says invalid for a tampered card and for one signed with another key; unsigned for none', async () => {
    const agents = await catalog(gateway);
    expect(agents['tampered']!.cardSignature).toMatchObject({ result: 'invalid' });
    expect(agents['wrongKey']!.cardSignature).toMatchObject({ result: 'invalid' });
    expect(agents['unsigned']!.cardSignature).toMatchObject({ result: 'unsigned' });
    // Without `require` the card is still served.
    expect((await fetch(`${gateway.url}/agents/tampered${CARD}`)).status).toBe(200);
    expect((await fetch(`${gateway.url}/agents/signed${CARD}`)).status).toBe(200);
    // …with the finding card.signature-invalid on that exchange (and none for the valid card).
    const text = await (await fetch(`${gateway.adminUrl}/metrics`)).text();
    expect(text).toMatch(/a2a_findings_total\{agent="tampered",rule="card.signature-invalid"\} [1-9]/);
    expect(text).toMatch(/a2a_findings_total\{agent="signed",rule="card.signature-invalid"\} 0/);
  });

  it('fetches the keys from a configured jwksUrl, and refuses a JWKS past the size cap', async () => {
    const agents = await catalog(gateway);
    expect(agents['remote']!.cardSignature).toEqual({ result: 'valid', kid: 'agent-1', form: 'jcs' });
    expect(agents['remoteHuge']!.cardSignature).toMatchObject({ result: 'invalid' });
    expect(agents['remoteHuge']!.cardSignature.why).toContain('larger than 65536 bytes');
  });

  it('fetches the keys from the jku a signature names when jku.allow admits it, and only then', async () => {
    const agents = await catalog(gateway);
    expect(agents['jkuAllowed']!.cardSignature).toEqual({ result: 'valid', kid: 'agent-1', form: 'jcs' });
    expect(agents['jkuNotAllowed']!.cardSignature).toMatchObject({ result: 'invalid' });
    expect(agents['jkuNotAllowed']!.cardSignature.why).toContain('is not in cards.signature.jku.allow');
    // A prefix not ending in `/` admits that URL alone, not `/jwks.json` beside it.
    expect(agents['jkuSimilar']!.cardSignature.why).toContain('is not in cards.signature.jku.allow');
  });

  it('counts each check in a2a_card_signature_checks_total by result', async () => {
    await catalog(gateway);
    const text = await (await fetch(`${gateway.adminUrl}/metrics`)).text();
    expect(text).toMatch(/a2a_card_signature_checks_total\{agent="signed",result="valid"\} [1-9]/);
    expect(text).toMatch(/a2a_card_signature_checks_total\{agent="tampered",result="invalid"\} [1-9]/);
    expect(text).toMatch(/a2a_card_signature_checks_total\{agent="unsigned",result="unsigned"\} [1-9]/);
  });

  it('with require, serves a valid card and refuses a tampered one (502, agent not ready)', async () => {
    expect((await fetch(`${strict.url}/agents/signed${CARD}`)).status).toBe(200);
    const refused = await fetch(`${strict.url}/agents/tampered${CARD}`);
    expect(refused.status).toBe(502);
    expect(await refused.text()).toContain('signature does not verify');
    const agents = await catalog(strict);
    expect(agents['tampered']!.reachable).toBe(false);
    expect(agents['tampered']!.cardError).toContain('cards.signature.require');
    expect(agents['signed']!.reachable).toBe(true);
  });
});
