/**
 * JWT verification (issue #13 item 2) against real keys and a real JWKS served over loopback: no
 * mock of jose. Covers each refusal reason, the clock skew, the bounds on the JWKS fetch (closed
 * port, a server that never answers, a document past `maxBytes`, a redirect) and that the key set
 * is fetched once for many tokens. Static PEM/JWK keys and the HS256 secret are covered too.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportJWK, exportSPKI, generateKeyPair, SignJWT, type CryptoKey, type JWTPayload } from 'jose';
import { JwtVerifier, type JwtOptions } from '../../src/access/jwt.js';

const ISSUER = 'https://idp.example';
const AUDIENCE = 'a2a-gateway';
const JWKS_DEFAULTS = { timeoutMs: 2_000, cooldownMs: 30_000, cacheMaxAgeMs: 600_000, maxBytes: 64 * 1024 };
const SECRET = 'an-hs256-shared-secret-of-32-chars-or-more';
const now = () => Math.floor(Date.now() / 1000);

type Pair = { publicKey: CryptoKey; privateKey: CryptoKey };
let rsa: Pair;
let ec: Pair;
let stranger: Pair;
let jwksBody: string;

interface TokenSpec {
  claims?: JWTPayload;
  alg?: string;
  kid?: string;
  key?: CryptoKey | Uint8Array;
  iss?: string;
  aud?: string;
  exp?: number | null;
}

function sign(spec: TokenSpec = {}): Promise<string> {
  const alg = spec.alg ?? 'RS256';
  const kid = spec.kid ?? (alg === 'RS256' ? 'rsa-1' : undefined);
  const jwt = new SignJWT({ sub: 'alice', groups: ['eng', 'ops'], ...spec.claims })
    .setProtectedHeader(kid === undefined ? { alg } : { alg, kid })
    .setIssuer(spec.iss ?? ISSUER)
    .setAudience(spec.aud ?? AUDIENCE)
    .setIssuedAt();
  if (spec.exp !== null) jwt.setExpirationTime(spec.exp ?? now() + 300);
  return jwt.sign(spec.key ?? rsa.privateKey);
}

function options(over: Partial<JwtOptions> = {}): JwtOptions {
  return { issuer: ISSUER, audience: AUDIENCE, clockSkewMs: 0, jwks: JWKS_DEFAULTS, ...over };
}

interface Served {
  url: string;
  requests: () => number;
  close: () => Promise<void>;
}

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<Served> {
  let requests = 0;
  const server: Server = createServer((req, res) => {
    requests += 1;
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/.well-known/jwks.json`,
    requests: () => requests,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

const serveJwks = () => serve((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(jwksBody));

let idp: Served;

beforeAll(async () => {
  rsa = await generateKeyPair('RS256');
  ec = await generateKeyPair('ES256');
  stranger = await generateKeyPair('RS256');
  const rsaJwk = { ...(await exportJWK(rsa.publicKey)), kid: 'rsa-1', alg: 'RS256', use: 'sig' };
  const ecJwk = { ...(await exportJWK(ec.publicKey)), kid: 'ec-1', alg: 'ES256', use: 'sig' };
  jwksBody = JSON.stringify({ keys: [rsaJwk, ecJwk] });
  idp = await serveJwks();
});

afterAll(() => idp.close());

describe('JwtVerifier with a JWKS', () => {
  const verifier = () => new JwtVerifier(options({ jwksUrl: idp.url }));

  it('accepts a valid token: principal from `sub`, groups from an array claim', async () => {
    const result = await verifier().verify(await sign());
    expect(result).toEqual({ principal: { id: 'alice', groups: ['eng', 'ops'], via: 'jwt' } });
  });

  it('accepts an ES256 token from the same key set', async () => {
    const token = await sign({ alg: 'ES256', kid: 'ec-1', key: ec.privateKey });
    expect(await verifier().verify(token)).toEqual({ principal: { id: 'alice', groups: ['eng', 'ops'], via: 'jwt' } });
  });

  it('reads groups from a space-separated `scope` string when groupsClaim is `scope`', async () => {
    const v = new JwtVerifier(options({ jwksUrl: idp.url, groupsClaim: 'scope' }));
    const result = await v.verify(await sign({ claims: { scope: 'a2a:send  a2a:read tasks' } }));
    expect(result).toEqual({ principal: { id: 'alice', groups: ['a2a:send', 'a2a:read', 'tasks'], via: 'jwt' } });
  });

  it('gives no groups when the groups claim is absent, and refuses one of the wrong type', async () => {
    const v = new JwtVerifier(options({ jwksUrl: idp.url, groupsClaim: 'roles' }));
    expect(await v.verify(await sign())).toEqual({ principal: { id: 'alice', groups: [], via: 'jwt' } });
    expect(await v.verify(await sign({ claims: { roles: { admin: true } } }))).toEqual({ failure: 'malformed' });
    expect(await v.verify(await sign({ claims: { roles: ['a', 1] } }))).toEqual({ failure: 'malformed' });
  });

  it('names the principal by principalClaim', async () => {
    const v = new JwtVerifier(options({ jwksUrl: idp.url, principalClaim: 'client_id' }));
    const result = await v.verify(await sign({ claims: { client_id: 'planner' } }));
    expect(result).toMatchObject({ principal: { id: 'planner' } });
  });

  it('refuses an expired token as `expired`', async () => {
    expect(await verifier().verify(await sign({ exp: now() - 10 }))).toEqual({ failure: 'expired' });
  });

  it('accepts an expired token within the clock skew', async () => {
    const v = new JwtVerifier(options({ jwksUrl: idp.url, clockSkewMs: 30_000 }));
    expect(await v.verify(await sign({ exp: now() - 10 }))).toMatchObject({ principal: { id: 'alice' } });
  });

  it('refuses a token not valid yet (`nbf`) as `expired`', async () => {
    expect(await verifier().verify(await sign({ claims: { nbf: now() + 120 } }))).toEqual({ failure: 'expired' });
  });

  it('refuses a token without `exp` as `malformed`', async () => {
    expect(await verifier().verify(await sign({ exp: null }))).toEqual({ failure: 'malformed' });
  });

  it('refuses another audience or issuer', async () => {
    expect(await verifier().verify(await sign({ aud: 'someone-else' }))).toEqual({ failure: 'invalid-audience' });
    expect(await verifier().verify(await sign({ iss: 'https://evil.example' }))).toEqual({
      failure: 'invalid-issuer',
    });
  });

  it('accepts any of several issuers and audiences', async () => {
    const v = new JwtVerifier(
      options({ jwksUrl: idp.url, issuer: ['https://other.example', ISSUER], audience: ['x', AUDIENCE] }),
    );
    expect(await v.verify(await sign())).toMatchObject({ principal: { id: 'alice' } });
  });

  it('refuses a token signed by another key as `invalid-signature`, kid unknown or reused', async () => {
    const v = verifier();
    const unknownKid = await sign({ key: stranger.privateKey, kid: 'stranger-1' });
    const reusedKid = await sign({ key: stranger.privateKey, kid: 'rsa-1' });
    expect(await v.verify(unknownKid)).toEqual({ failure: 'invalid-signature' });
    expect(await v.verify(reusedKid)).toEqual({ failure: 'invalid-signature' });
  });

  it('refuses a token whose `alg` a key set cannot serve (HS256) as `invalid-signature`', async () => {
    const token = await sign({ alg: 'HS256', key: new TextEncoder().encode(SECRET) });
    expect(await verifier().verify(token)).toEqual({ failure: 'invalid-signature' });
  });

  it('refuses an unsigned (`alg: none`) token and one with its signature cut off', async () => {
    const [header, payload] = (await sign()).split('.');
    const none = Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url');
    expect(await verifier().verify(`${none}.${payload}.`)).toEqual({ failure: 'invalid-signature' });
    expect(await verifier().verify(`${header}.${payload}.`)).toEqual({ failure: 'invalid-signature' });
  });

  it('refuses a token without the principal claim as `no-principal`', async () => {
    expect(await verifier().verify(await sign({ claims: { sub: undefined } }))).toEqual({ failure: 'no-principal' });
    expect(await verifier().verify(await sign({ claims: { sub: '' } }))).toEqual({ failure: 'no-principal' });
  });

  it('refuses garbage as `malformed`', async () => {
    for (const garbage of ['garbage', 'a.b.c', 'x.y', '', '...', `${'e30'}.e30.e30.e30`]) {
      expect(await verifier().verify(garbage)).toEqual({ failure: 'malformed' });
    }
  });

  it('judges a token with a readable header by its signature before reading its payload', async () => {
    // jose checks the signature first: a forged token with a junk payload is not "malformed".
    const junk = 'eyJhbGciOiJSUzI1NiJ9.bm90IGpzb24.c2ln'; // {"alg":"RS256"} . "not json" . "sig"
    expect(await verifier().verify(junk)).toEqual({ failure: 'invalid-signature' });
  });

  it('fetches the key set once for many verifications, concurrent or not', async () => {
    const counted = await serveJwks();
    try {
      const v = new JwtVerifier(options({ jwksUrl: counted.url }));
      const token = await sign();
      const concurrent = await Promise.all(Array.from({ length: 10 }, () => v.verify(token)));
      const sequential = [];
      for (let i = 0; i < 10; i++) sequential.push(await v.verify(token));
      expect([...concurrent, ...sequential].every((r) => 'principal' in r)).toBe(true);
      expect(counted.requests()).toBe(1);
    } finally {
      await counted.close();
    }
  });

  it('does not refetch for an unknown kid within the cooldown', async () => {
    const counted = await serveJwks();
    try {
      const v = new JwtVerifier(options({ jwksUrl: counted.url }));
      expect(await v.verify(await sign())).toMatchObject({ principal: { id: 'alice' } });
      for (let i = 0; i < 5; i++) {
        const token = await sign({ key: stranger.privateKey, kid: `random-${i}` });
        expect(await v.verify(token)).toEqual({ failure: 'invalid-signature' });
      }
      expect(counted.requests()).toBe(1);
    } finally {
      await counted.close();
    }
  });
});

describe('JwtVerifier when the JWKS cannot be had', () => {
  const withServer = async (
    handler: (req: IncomingMessage, res: ServerResponse) => void,
    jwks: Partial<JwtOptions['jwks']> = {},
  ) => {
    const server = await serve(handler);
    try {
      const v = new JwtVerifier(options({ jwksUrl: server.url, jwks: { ...JWKS_DEFAULTS, ...jwks } }));
      return await v.verify(await sign());
    } finally {
      await server.close();
    }
  };

  it('reports a closed port as `jwks-unavailable`', async () => {
    const gone = await serve(() => {});
    await gone.close();
    const v = new JwtVerifier(options({ jwksUrl: gone.url }));
    expect(await v.verify(await sign())).toEqual({ failure: 'jwks-unavailable' });
  });

  it('reports a server that never answers as `jwks-unavailable` after timeoutMs', async () => {
    const started = Date.now();
    expect(await withServer(() => {}, { timeoutMs: 100 })).toEqual({ failure: 'jwks-unavailable' });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('reports a server that stalls mid-body as `jwks-unavailable` after timeoutMs', async () => {
    const stall = (_req: IncomingMessage, res: ServerResponse) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"keys":[');
    };
    expect(await withServer(stall, { timeoutMs: 100 })).toEqual({ failure: 'jwks-unavailable' });
  });

  it('refuses a key set larger than maxBytes, declared or streamed', async () => {
    const big = JSON.stringify({ keys: JSON.parse(jwksBody).keys, padding: 'x'.repeat(4_096) });
    const declared = (_req: IncomingMessage, res: ServerResponse) =>
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(big) }).end(big);
    const streamed = (_req: IncomingMessage, res: ServerResponse) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      for (let i = 0; i < big.length; i += 512) res.write(big.slice(i, i + 512));
      res.end();
    };
    expect(await withServer(declared, { maxBytes: 1_024 })).toEqual({ failure: 'jwks-unavailable' });
    expect(await withServer(streamed, { maxBytes: 1_024 })).toEqual({ failure: 'jwks-unavailable' });
    expect(await withServer(streamed, { maxBytes: 8_192 })).toMatchObject({ principal: { id: 'alice' } });
  });

  it('refuses a redirect instead of following it', async () => {
    const redirect = (_req: IncomingMessage, res: ServerResponse) => res.writeHead(302, { location: idp.url }).end();
    expect(await withServer(redirect)).toEqual({ failure: 'jwks-unavailable' });
  });

  it('refuses an error status or a body that is not a key set', async () => {
    const status = (_req: IncomingMessage, res: ServerResponse) => res.writeHead(500).end(jwksBody);
    const notJson = (_req: IncomingMessage, res: ServerResponse) => res.writeHead(200).end('<html>');
    const notSet = (_req: IncomingMessage, res: ServerResponse) => res.writeHead(200).end('{"keys":"no"}');
    expect(await withServer(status)).toEqual({ failure: 'jwks-unavailable' });
    expect(await withServer(notJson)).toEqual({ failure: 'jwks-unavailable' });
    expect(await withServer(notSet)).toEqual({ failure: 'jwks-unavailable' });
  });

  it('tries again on the next token after a failed fetch', async () => {
    let calls = 0;
    const flaky = await serve((_req, res) => {
      calls += 1;
      if (calls === 1) res.writeHead(503).end();
      else res.writeHead(200, { 'content-type': 'application/json' }).end(jwksBody);
    });
    try {
      const v = new JwtVerifier(options({ jwksUrl: flaky.url }));
      const token = await sign();
      expect(await v.verify(token)).toEqual({ failure: 'jwks-unavailable' });
      expect(await v.verify(token)).toMatchObject({ principal: { id: 'alice' } });
    } finally {
      await flaky.close();
    }
  });
});

describe('JwtVerifier with a static key or a secret', () => {
  it('verifies with a PEM (SPKI) public key', async () => {
    const v = new JwtVerifier(options({ key: await exportSPKI(rsa.publicKey) }));
    expect(await v.verify(await sign())).toMatchObject({ principal: { id: 'alice' } });
    expect(await v.verify(await sign({ key: stranger.privateKey }))).toEqual({ failure: 'invalid-signature' });
    expect(await v.verify(await sign({ alg: 'ES256', key: ec.privateKey }))).toEqual({
      failure: 'invalid-signature',
    });
  });

  it('verifies with one JWK given as JSON', async () => {
    const v = new JwtVerifier(options({ key: JSON.stringify(await exportJWK(ec.publicKey)) }));
    expect(await v.verify(await sign({ alg: 'ES256', key: ec.privateKey }))).toMatchObject({
      principal: { id: 'alice' },
    });
    expect(await v.verify(await sign())).toEqual({ failure: 'invalid-signature' });
  });

  it('verifies HS256 with a shared secret, and only HS256 by default', async () => {
    const secret = new TextEncoder().encode(SECRET);
    const v = new JwtVerifier(options({ secret: SECRET }));
    expect(await v.verify(await sign({ alg: 'HS256', key: secret }))).toMatchObject({ principal: { id: 'alice' } });
    expect(await v.verify(await sign({ alg: 'HS512', key: secret }))).toEqual({ failure: 'invalid-signature' });
    const wrong = new TextEncoder().encode('another-shared-secret-of-32-characters');
    expect(await v.verify(await sign({ alg: 'HS256', key: wrong }))).toEqual({ failure: 'invalid-signature' });
    expect(await v.verify(await sign())).toEqual({ failure: 'invalid-signature' });
  });

  it('honours an explicit algorithms list', async () => {
    const v = new JwtVerifier(options({ key: await exportSPKI(rsa.publicKey), algorithms: ['PS256'] }));
    expect(await v.verify(await sign())).toEqual({ failure: 'invalid-signature' });
  });

  it('refuses a config it cannot use', async () => {
    const pem = await exportSPKI(rsa.publicKey);
    expect(() => new JwtVerifier(options())).toThrow(/exactly one of jwksUrl, key and secret/);
    expect(() => new JwtVerifier(options({ key: pem, secret: SECRET }))).toThrow(/exactly one/);
    expect(() => new JwtVerifier(options({ key: '{not json' }))).toThrow(/neither a PEM key nor valid JWK JSON/);
    expect(() => new JwtVerifier(options({ key: '{"kty":"oct","k":"c2VjcmV0"}' }))).toThrow(/public key/);
    expect(() => new JwtVerifier(options({ key: '-----BEGIN PRIVATE KEY-----\n…' }))).toThrow(/private key/);
    expect(() => new JwtVerifier(options({ key: 'not a key' }))).toThrow();
    expect(() => new JwtVerifier(options({ secret: SECRET, algorithms: [] }))).toThrow(/must not be empty/);
  });
});
