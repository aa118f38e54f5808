/** `agents.{name}.cards.signature` validation (src/config/card-signature-schema.ts). */
import { beforeAll, describe, expect, it } from 'vitest';
import { exportJWK, generateKeyPair, generateSecret, type JWK } from 'jose';
import { parseConfig } from '../../src/config/load.js';

const load = (signature: unknown) =>
  parseConfig(
    JSON.stringify({ agents: { a: { url: 'http://127.0.0.1:9', cards: { signature } } } }),
    'card-signature-test',
    {},
  );

let publicJwk: JWK;
let privateJwk: JWK;
let edPublic: JWK;

beforeAll(async () => {
  const ec = await generateKeyPair('ES256', { extractable: true });
  publicJwk = { ...(await exportJWK(ec.publicKey)), kid: 'k1' };
  privateJwk = { ...(await exportJWK(ec.privateKey)), kid: 'k1' };
  edPublic = { ...(await exportJWK((await generateKeyPair('EdDSA', { extractable: true })).publicKey)), kid: 'k2' };
});

describe('cards.signature', () => {
  it('takes public EC and OKP keys; require defaults to false; absent by default', () => {
    const config = load({ jwks: { keys: [publicJwk, edPublic] } });
    expect(config.agents['a']!.cards.signature).toMatchObject({ require: false });
    const plain = parseConfig(JSON.stringify({ agents: { a: { url: 'http://127.0.0.1:9' } } }), 't', {});
    expect(plain.agents['a']!.cards.signature).toBeUndefined();
  });

  it('refuses a private key in the JWKS, and says so without echoing it', () => {
    let message = '';
    try {
      load({ jwks: { keys: [privateJwk] } });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toContain('must be a public key');
    expect(message).not.toContain(privateJwk.d!);
  });

  it('refuses a symmetric key', async () => {
    const secret = await exportJWK(await generateSecret('HS256', { extractable: true }));
    expect(() => load({ jwks: { keys: [secret] } })).toThrow(/must be a public key/);
  });

  it('takes one of jwks and jwksUrl (an http(s) URL), or jku.allow, and some keys', () => {
    expect(load({ jwksUrl: 'https://keys.example/jwks.json' }).agents['a']!.cards.signature?.jwksUrl).toBe(
      'https://keys.example/jwks.json',
    );
    expect(() => load({ jwks: { keys: [publicJwk] }, jwksUrl: 'https://keys.example/jwks.json' })).toThrow(
      /one of jwks \(inline\) or jwksUrl, not both/,
    );
    expect(() => load({ require: true })).toThrow(/give the agent keys/);
    expect(() => load({ jwksUrl: 'file:///etc/keys.json' })).toThrow();
    const jku = { allow: ['https://keys.example/agents/'] };
    expect(load({ jku }).agents['a']!.cards.signature?.jku).toEqual(jku);
    expect(load({ jwks: { keys: [publicJwk] }, jku }).agents['a']!.cards.signature?.jku).toEqual(jku);
    expect(() => load({ jku: { allow: [] } })).toThrow();
    expect(() => load({ jku: { allow: ['file:///keys/'] } })).toThrow();
  });

  it('refuses a JWK that is not a key, an empty JWKS and unknown members', () => {
    expect(() => load({ jwks: { keys: [{ kty: 'EC', crv: 'P-256', x: 'AAAA', y: 'AAAA' }] } })).toThrow(
      /not a usable public JWK/,
    );
    expect(() => load({ jwks: { keys: [] } })).toThrow();
    expect(() => load({ jwks: { keys: [publicJwk] }, jku: 'https://keys.example' })).toThrow();
  });
});
