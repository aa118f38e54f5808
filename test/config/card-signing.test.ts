/** `cards.signing` validation (src/config/card-signing-schema.ts). */
import { beforeAll, describe, expect, it } from 'vitest';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createPrivateKey } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfig } from '../../src/config/load.js';

const load = (signing: unknown, env: Record<string, string> = {}) =>
  parseConfig(
    JSON.stringify({ cards: { signing }, agents: { a: { url: 'http://127.0.0.1:9' } } }),
    'signing-test',
    env,
  );

const message = (run: () => unknown): string => {
  try {
    run();
  } catch (err) {
    return (err as Error).message;
  }
  return '';
};

let ecPrivate: JWK;
let ecPublic: JWK;
let edPrivate: JWK;

beforeAll(async () => {
  const ec = await generateKeyPair('ES256', { extractable: true });
  ecPrivate = await exportJWK(ec.privateKey);
  ecPublic = await exportJWK(ec.publicKey);
  edPrivate = await exportJWK((await generateKeyPair('EdDSA', { extractable: true })).privateKey);
});

describe('cards.signing', () => {
  it('takes a private ES256 or EdDSA JWK, inline or as JSON from ${ENV}', () => {
    expect(load({ key: ecPrivate, alg: 'ES256', kid: 'k' }).cards.signing?.passThroughUnchanged).toBe(false);
    expect(load({ key: edPrivate, alg: 'EdDSA', kid: 'k' }).cards.signing?.alg).toBe('EdDSA');
    const fromEnv = load({ key: '${CARD_KEY}', alg: 'ES256', kid: 'k' }, { CARD_KEY: JSON.stringify(ecPrivate) });
    expect(fromEnv.cards.signing?.key).toEqual(ecPrivate);
  });

  it('refuses a public key, a key of the wrong type for alg, and a broken key', () => {
    expect(message(() => load({ key: ecPublic, alg: 'ES256', kid: 'k' }))).toContain('must be a private JWK');
    expect(message(() => load({ key: edPrivate, alg: 'ES256', kid: 'k' }))).toContain('signs with a EC P-256 key');
    expect(message(() => load({ key: { ...ecPrivate, d: 'AAAA' }, alg: 'ES256', kid: 'k' }))).toContain(
      'not a usable private JWK',
    );
  });

  it('reads keyFile: a JWK as JSON or a PEM private key; refuses a missing file and key with keyFile', () => {
    const dir = mkdtempSync(join(tmpdir(), 'card-key-'));
    const jwkFile = join(dir, 'key.json');
    writeFileSync(jwkFile, JSON.stringify(ecPrivate));
    const pemFile = join(dir, 'key.pem');
    const pem = createPrivateKey({ key: ecPrivate as import('node:crypto').JsonWebKey, format: 'jwk' }).export({
      format: 'pem',
      type: 'pkcs8',
    });
    writeFileSync(pemFile, pem);
    expect(load({ keyFile: jwkFile, alg: 'ES256', kid: 'k' }).cards.signing?.key).toEqual(ecPrivate);
    expect(load({ keyFile: pemFile, alg: 'ES256', kid: 'k' }).cards.signing?.key).toMatchObject({ d: ecPrivate.d });
    expect(message(() => load({ keyFile: join(dir, 'absent.pem'), alg: 'ES256', kid: 'k' }))).toContain('ENOENT');
    expect(message(() => load({ key: ecPrivate, keyFile: jwkFile, alg: 'ES256', kid: 'k' }))).toContain(
      'exactly one of key and keyFile',
    );
    expect(message(() => load({ alg: 'ES256', kid: 'k' }))).toContain('exactly one of key and keyFile');
  });

  it('refuses a key string that is not JSON without echoing it', () => {
    const text = message(() => load({ key: 'secret-material-123', alg: 'ES256', kid: 'k' }));
    expect(text).toContain('it is neither');
    expect(text).not.toContain('secret-material-123');
  });
});
