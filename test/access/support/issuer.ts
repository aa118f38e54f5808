/**
 * A test JWT issuer on loopback: an RS256 key pair whose public half is served as a real JWKS
 * (`GET /jwks.json`), tokens signed with jose, and a count of every request the JWKS endpoint
 * gets (the gateway must fetch it once, not once per call). A second, unpublished key pair signs
 * tokens no trusted key vouches for.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';

export const AUDIENCE = 'a2a-gateway';
export const KID = 'issuer-key-1';

export interface TokenSpec {
  /** `sub` (default: "jwt-client"). */
  sub?: string;
  groups?: string[];
  /** `aud` (default: the gateway's audience). */
  aud?: string;
  /** `exp` in seconds from now; negative: already expired (default 300). */
  expiresIn?: number;
  /** Sign with the unpublished key (same `kid` as the trusted one unless `kid` is given). */
  stranger?: boolean;
  kid?: string;
}

export interface Issuer {
  /** `http://127.0.0.1:<port>`: the `iss` of every token and the gateway's `jwt.issuer`. */
  readonly url: string;
  readonly jwksUrl: string;
  /** Requests the JWKS endpoint has answered so far. */
  jwksRequests(): number;
  sign(spec?: TokenSpec): Promise<string>;
  /** The gateway's `auth.jwt` section for this issuer. */
  config(): Record<string, unknown>;
  close(): Promise<void>;
}

type Pair = { publicKey: CryptoKey; privateKey: CryptoKey };

export async function startIssuer(): Promise<Issuer> {
  const trusted: Pair = await generateKeyPair('RS256');
  const stranger: Pair = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(trusted.publicKey)), kid: KID, alg: 'RS256', use: 'sig' };
  const jwks = JSON.stringify({ keys: [jwk] });
  let jwksRequests = 0;
  const server: Server = createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/jwks.json') {
      jwksRequests += 1;
      res.writeHead(200, { 'content-type': 'application/json' }).end(jwks);
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const jwksUrl = `${url}/jwks.json`;

  const sign = (spec: TokenSpec = {}): Promise<string> => {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ groups: spec.groups ?? ['team-jwt'] })
      .setProtectedHeader({ alg: 'RS256', kid: spec.kid ?? KID })
      .setSubject(spec.sub ?? 'jwt-client')
      .setIssuer(url)
      .setAudience(spec.aud ?? AUDIENCE)
      .setIssuedAt(now - 3600)
      .setExpirationTime(now + (spec.expiresIn ?? 300))
      .sign(spec.stranger ? stranger.privateKey : trusted.privateKey);
  };

  return {
    url,
    jwksUrl,
    jwksRequests: () => jwksRequests,
    sign,
    config: () => ({ issuer: url, audience: AUDIENCE, jwksUrl, principalClaim: 'sub', groupsClaim: 'groups' }),
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
