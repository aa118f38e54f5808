/**
 * Client authentication as a whole (issue #13 item 2): which header is read, in which order the
 * mechanisms are tried, and the `WWW-Authenticate` challenge. Real jose, a real static key.
 *
 * Documented choice: `Authorization: Basic …` (any scheme but Bearer) counts as `missing`, not
 * `invalid-key`: the gateway understands no such credential, and RFC 6750 §3.1 answers a request
 * using an unsupported method with a challenge that carries no error code.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { beforeAll, describe, expect, it } from 'vitest';
import { exportSPKI, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { Authenticator, type AuthOptions } from '../../src/access/authenticate.js';

const PLANNER_KEY = 'planner-key-0123456789abcdef';
const WRITER_KEY = 'writer-key-fedcba9876543210';
const ISSUER = 'https://idp.example';
const AUDIENCE = 'a2a-gateway';
const JWKS = { timeoutMs: 1_000, cooldownMs: 30_000, cacheMaxAgeMs: 600_000, maxBytes: 64 * 1024 };
const API_KEYS: AuthOptions['apiKeys'] = {
  planner: { key: PLANNER_KEY, groups: ['planning'] },
  writer: { key: WRITER_KEY, groups: [] },
};

let privateKey: CryptoKey;
let withJwt: Authenticator;
const keysOnly = new Authenticator({ apiKeys: API_KEYS });

const token = (exp = Math.floor(Date.now() / 1000) + 300) =>
  new SignJWT({ sub: 'alice', groups: ['eng'] })
    .setProtectedHeader({ alg: 'ES256' })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setExpirationTime(exp)
    .sign(privateKey);

beforeAll(async () => {
  const pair = await generateKeyPair('ES256');
  privateKey = pair.privateKey;
  const key = await exportSPKI(pair.publicKey);
  withJwt = new Authenticator({
    apiKeys: API_KEYS,
    jwt: { issuer: ISSUER, audience: AUDIENCE, key, clockSkewMs: 0, jwks: JWKS },
  });
});

const planner = { principal: { id: 'planner', groups: ['planning'], via: 'api-key' } };

describe('Authenticator.authenticate', () => {
  it('accepts an API key as a Bearer token', async () => {
    expect(await withJwt.authenticate({ authorization: `Bearer ${PLANNER_KEY}` })).toEqual(planner);
    expect(await keysOnly.authenticate({ authorization: `Bearer ${PLANNER_KEY}` })).toEqual(planner);
  });

  it('accepts an API key in X-API-Key', async () => {
    expect(await withJwt.authenticate({ 'x-api-key': PLANNER_KEY })).toEqual(planner);
    expect(await keysOnly.authenticate({ 'x-api-key': ` ${WRITER_KEY} ` })).toMatchObject({
      principal: { id: 'writer' },
    });
  });

  it('accepts a JWT as a Bearer token', async () => {
    expect(await withJwt.authenticate({ authorization: `Bearer ${await token()}` })).toEqual({
      principal: { id: 'alice', groups: ['eng'], via: 'jwt' },
    });
  });

  it('reads the Bearer scheme case-insensitively', async () => {
    expect(await withJwt.authenticate({ authorization: `bearer ${PLANNER_KEY}` })).toEqual(planner);
    expect(await withJwt.authenticate({ authorization: `BEARER  ${PLANNER_KEY}` })).toEqual(planner);
  });

  it('says `missing` without credentials', async () => {
    expect(await withJwt.authenticate({})).toEqual({ failure: 'missing' });
    expect(await withJwt.authenticate({ authorization: 'Bearer' })).toEqual({ failure: 'missing' });
    expect(await withJwt.authenticate({ authorization: 'Bearer   ' })).toEqual({ failure: 'missing' });
  });

  it('says `missing` for another scheme (Basic), even carrying a valid key', async () => {
    const basic = `Basic ${Buffer.from(`planner:${PLANNER_KEY}`).toString('base64')}`;
    expect(await withJwt.authenticate({ authorization: basic })).toEqual({ failure: 'missing' });
    expect(await withJwt.authenticate({ authorization: `Basic ${PLANNER_KEY}` })).toEqual({ failure: 'missing' });
  });

  it('says `invalid-key` for a wrong key, in either header', async () => {
    expect(await withJwt.authenticate({ authorization: 'Bearer wrong-key' })).toEqual({ failure: 'invalid-key' });
    expect(await withJwt.authenticate({ 'x-api-key': 'wrong-key' })).toEqual({ failure: 'invalid-key' });
    expect(await withJwt.authenticate({ 'x-api-key': '' })).toEqual({ failure: 'invalid-key' });
  });

  it('tries only API keys in X-API-Key', async () => {
    const jwtInKeyHeader = { 'x-api-key': await token() };
    expect(await withJwt.authenticate(jwtInKeyHeader)).toEqual({ failure: 'invalid-key' });
  });

  it('refuses more than one credential header, whatever they hold (issue #29 item 3)', async () => {
    const ambiguous = { failure: 'ambiguous-credentials' };
    // Both kinds, either one valid.
    expect(await withJwt.authenticate({ 'x-api-key': 'wrong-key', authorization: `Bearer ${PLANNER_KEY}` })).toEqual(
      ambiguous,
    );
    expect(await withJwt.authenticate({ 'x-api-key': PLANNER_KEY, authorization: 'Bearer garbage' })).toEqual(
      ambiguous,
    );
    expect(await withJwt.authenticate({ 'x-api-key': PLANNER_KEY, authorization: 'Basic eDp5' })).toEqual(ambiguous);
    // A header held as a list.
    const list = { 'x-api-key': [PLANNER_KEY, WRITER_KEY] } as unknown as IncomingHttpHeaders;
    expect(await withJwt.authenticate(list)).toEqual(ambiguous);
    // One name twice, as only the raw list shows it (node:http keeps the first Authorization and
    // joins X-API-Key values with ", ").
    const twoBearers = ['Authorization', `Bearer ${PLANNER_KEY}`, 'authorization', `Bearer ${WRITER_KEY}`];
    expect(await withJwt.authenticate({ authorization: `Bearer ${PLANNER_KEY}` }, twoBearers)).toEqual(ambiguous);
    const twoKeys = ['X-API-Key', PLANNER_KEY, 'x-api-key', WRITER_KEY];
    expect(await withJwt.authenticate({ 'x-api-key': `${PLANNER_KEY}, ${WRITER_KEY}` }, twoKeys)).toEqual(ambiguous);
    // One of each other header is not a second credential.
    const one = ['Host', 'gw', 'X-API-Key', PLANNER_KEY, 'Proxy-Authorization', 'Basic eDp5'];
    expect(await withJwt.authenticate({ 'x-api-key': PLANNER_KEY }, one)).toEqual(planner);
  });

  it('reports why a JWT was refused', async () => {
    const expired = await token(Math.floor(Date.now() / 1000) - 60);
    expect(await withJwt.authenticate({ authorization: `Bearer ${expired}` })).toEqual({ failure: 'expired' });
  });

  it('says `invalid-key` for a JWT when no issuer is configured, or for a token not shaped like one', async () => {
    expect(await keysOnly.authenticate({ authorization: `Bearer ${await token()}` })).toEqual({
      failure: 'invalid-key',
    });
    expect(await withJwt.authenticate({ authorization: 'Bearer not.a-jwt' })).toEqual({ failure: 'invalid-key' });
  });

  it('decides API keys without consulting the issuer (whose JWKS here is unreachable)', async () => {
    const unreachable = new Authenticator({
      apiKeys: API_KEYS,
      jwt: { issuer: ISSUER, audience: AUDIENCE, jwksUrl: 'http://127.0.0.1:1/jwks', clockSkewMs: 0, jwks: JWKS },
    });
    expect(await unreachable.authenticate({ authorization: `Bearer ${PLANNER_KEY}` })).toEqual(planner);
    expect(await unreachable.authenticate({ authorization: 'Bearer wrong-key' })).toEqual({ failure: 'invalid-key' });
    expect(await unreachable.authenticate({ authorization: `Bearer ${await token()}` })).toEqual({
      failure: 'jwks-unavailable',
    });
  });
});

describe('Authenticator.challenge', () => {
  it('names the realm, with no error code when no credential was sent', () => {
    expect(withJwt.challenge('missing')).toBe('Bearer realm="a2a-gateway"');
    expect(keysOnly.challenge('missing')).toBe('Bearer realm="a2a-gateway"');
  });

  it('adds error="invalid_request" for more than one credential (RFC 6750 §3.1)', () => {
    expect(withJwt.challenge('ambiguous-credentials')).toBe('Bearer realm="a2a-gateway", error="invalid_request"');
  });

  it('adds error="invalid_token" when a credential was sent but refused', () => {
    for (const failure of ['invalid-key', 'expired', 'invalid-signature', 'jwks-unavailable'] as const) {
      expect(withJwt.challenge(failure)).toBe('Bearer realm="a2a-gateway", error="invalid_token"');
    }
  });
});

describe('Authenticator.CREDENTIAL_HEADERS', () => {
  it('lists the headers that carry client credentials, lower-cased', () => {
    expect(Authenticator.CREDENTIAL_HEADERS).toEqual(['authorization', 'x-api-key']);
    expect(Object.isFrozen(Authenticator.CREDENTIAL_HEADERS)).toBe(true);
  });
});
