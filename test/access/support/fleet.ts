/**
 * One gateway with `auth` on in front of two real SDK agents (1.3.0 = A2A 1.0, 0.3.14 = A2A 0.3),
 * each configured twice: `v1` / `v03` strip the caller's credentials (the default), `v1-fwd` /
 * `v03-fwd` point at the same agent with `auth.forward: true`. Callers authenticate with an API
 * key given in clear (`planner`), one given as its SHA-256 (`ops-bot`), or a JWT from the loopback
 * issuer.
 */
import { createHash } from 'node:crypto';
import { startPeerV1 } from '../../peers/peer-v1.js';
import { startPeerV03 } from '../../peers/peer-v03.js';
import type { Peer, RecordedRequest } from '../../peers/peer-common.js';
import { within } from '../../peers/deadline.js';
import { startTestGateway } from '../../support/gateway.js';
import type { RunningGateway } from '../../../src/gateway/gateway.js';
import { startIssuer, type Issuer } from './issuer.js';

export const KEYS = {
  /** Configured as `key:`. */
  planner: 'planner-key-0123456789abcdef',
  /** Configured as `sha256:` only. */
  opsBot: 'ops-bot-key-fedcba9876543210',
  /** Configured nowhere. */
  wrong: 'not-a-configured-key-00000000',
} as const;

export const sha256Hex = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

export interface Fleet {
  readonly gateway: RunningGateway;
  readonly issuer: Issuer;
  readonly peerV1: Peer;
  readonly peerV03: Peer;
  /** `${gateway}/agents/<name>/`: what SDK clients are given (trailing slash for card discovery). */
  base(agent: string): string;
  close(): Promise<void>;
}

export interface FleetOptions {
  stepMs: number;
  /** The gateway's `auth.jwt.jwks` section (e.g. a short cooldown). */
  jwks?: Record<string, unknown>;
}

export async function startFleet(opts: FleetOptions): Promise<Fleet> {
  const issuer = await startIssuer();
  const peerV1 = await startPeerV1({ stepMs: opts.stepMs, slowMs: 400, extendedCard: true });
  const peerV03 = await startPeerV03({ stepMs: opts.stepMs, extendedCard: true });
  const gateway = await startTestGateway(
    {
      v1: { url: peerV1.url },
      'v1-fwd': { url: peerV1.url, auth: { forward: true } },
      v03: { url: peerV03.url },
      'v03-fwd': { url: peerV03.url, auth: { forward: true } },
    },
    {
      admin: { listen: { host: '127.0.0.1', port: 0 } },
      auth: {
        apiKeys: {
          planner: { key: KEYS.planner, groups: ['team-a'] },
          'ops-bot': { sha256: sha256Hex(KEYS.opsBot), groups: ['ops'] },
        },
        jwt: { ...issuer.config(), ...(opts.jwks ? { jwks: opts.jwks } : {}) },
      },
    },
  );
  return {
    gateway,
    issuer,
    peerV1,
    peerV03,
    base: (agent) => `${gateway.url}/agents/${agent}/`,
    close: async () => {
      await gateway.close();
      await Promise.all([peerV1.close(), peerV03.close(), issuer.close()]);
    },
  };
}

/** The requests an agent got from callers (the gateway's own card fetches left out). */
export function callsTo(peer: Peer): RecordedRequest[] {
  return peer.requests.filter((r) => !r.path.includes('/.well-known/'));
}

/** Header names and values of a recorded request, one string, to search for a secret. */
export function headerText(r: RecordedRequest): string {
  return JSON.stringify(r.headers);
}

export interface RawAnswer {
  status: number;
  headers: Headers;
  text: string;
}

/** One raw HTTP request (no SDK), to see status, headers and body exactly. */
export async function rawPost(url: string, body: unknown, headers: Record<string, string>): Promise<RawAnswer> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
    ...within(5000),
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** A card from the gateway with no credential. */
export async function rawCard(
  base: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; text: string }> {
  const res = await fetch(`${base}.well-known/agent-card.json`, { headers, ...within(5000) });
  return { status: res.status, text: await res.text() };
}
