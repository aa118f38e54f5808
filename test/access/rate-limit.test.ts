/**
 * Per-agent rate limits end to end (issue #13 item 5): `requests: 3, per: 1m, burst: 2` lets one
 * caller make five calls within the minute; the sixth is answered 429 RATE_LIMITED with
 * `Retry-After`, in the caller's protocol, and never reaches the agent. Counts are per principal
 * (others are unaffected), per agent, shared by both bindings, and keyed by client address when
 * `auth` is off. Every test stays far inside the minute, so nothing refills meanwhile.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPeerV1 } from '../peers/peer-v1.js';
import type { Peer } from '../peers/peer-common.js';
import { startTestGateway } from '../support/gateway.js';
import type { RunningGateway } from '../../src/gateway/gateway.js';
import {
  agentCalls,
  call,
  recordExchanges,
  rpc,
  startAccessGateway,
  V1,
  wireMessageV1,
  type PrincipalName,
  type RawReply,
} from './support/harness.js';
import { endpoints } from './support/wire.js';
import type { ExchangeRecord } from '../../src/exchange/record.js';

const LIMIT = { requests: 3, per: '1m', burst: 2 };
const ALLOWED = LIMIT.requests + LIMIT.burst;

let peer: Peer;
let gateway: RunningGateway;
let records: ExchangeRecord[];

beforeAll(async () => {
  peer = await startPeerV1({ stepMs: 20 });
  const recorder = recordExchanges();
  records = recorder.records;
  gateway = await startAccessGateway({ limited: { url: peer.url, rateLimit: LIMIT }, open: { url: peer.url } }, {}, [
    recorder.observer,
  ]);
});
afterAll(async () => {
  await gateway?.close();
  await peer?.close();
});

let rpcId = 100;
/** One question (a message answer, no task) by `who`, over JSON-RPC with a fresh id. */
function askJsonRpc(agent: string, who: PrincipalName | undefined, gw = gateway): Promise<RawReply> {
  return call(endpoints(gw.url, agent).jsonrpc, who, {
    body: rpc('SendMessage', { message: wireMessageV1('what is 6x7?') }, ++rpcId),
    headers: V1,
  });
}

function askRest(agent: string, who: PrincipalName): Promise<RawReply> {
  return call(`${endpoints(gateway.url, agent).rest}/message:send`, who, {
    body: { message: wireMessageV1('what is 6x7?') },
    headers: V1,
  });
}

function retryAfter(reply: RawReply): number {
  const value = reply.headers.get('retry-after');
  expect(value, 'Retry-After').toMatch(/^\d+$/);
  return Number(value);
}

const RATE_INFO = {
  '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
  reason: 'RATE_LIMITED',
  domain: 'a2a-gateway',
  metadata: { agent: 'limited' },
};

describe('rate limit: 3 per minute plus a burst of 2', () => {
  it('alice’s sixth JSON-RPC call in the minute is 429 with Retry-After and her id; the agent never gets it', async () => {
    const since = peer.requests.length;
    for (let i = 0; i < ALLOWED; i++) expect((await askJsonRpc('limited', 'alice')).status, `call ${i + 1}`).toBe(200);
    expect(agentCalls(peer, since)).toHaveLength(ALLOWED);
    const refused = await askJsonRpc('limited', 'alice');
    expect(refused.status).toBe(429);
    const seconds = retryAfter(refused);
    expect(seconds).toBeGreaterThanOrEqual(1);
    expect(seconds).toBeLessThanOrEqual(60);
    expect(refused.contentType).toBe('application/json');
    expect(refused.json).toEqual({
      jsonrpc: '2.0',
      id: rpcId,
      error: {
        code: -32000,
        message: `rate limit of agent "limited" reached; retry in ${seconds} s`,
        data: [RATE_INFO],
      },
    });
    expect(agentCalls(peer, since)).toHaveLength(ALLOWED);
    expect(records.at(-1)?.access).toEqual({ principal: 'alice', rateLimited: true });
  });

  it('alice stays limited on the other binding: the count is the agent’s, not the binding’s', async () => {
    const since = peer.requests.length;
    const refused = await askRest('limited', 'alice');
    expect(refused.status).toBe(429);
    expect(refused.contentType).toBe('application/a2a+json');
    expect(retryAfter(refused)).toBeGreaterThanOrEqual(1);
    expect((refused.json as { error: unknown }).error).toEqual({
      code: 429,
      status: 'RESOURCE_EXHAUSTED',
      message: expect.stringMatching(/^rate limit of agent "limited" reached; retry in \d+ s$/),
      details: [RATE_INFO],
    });
    expect(agentCalls(peer, since)).toEqual([]);
  });

  it('another principal is not affected, and neither is another agent for alice', async () => {
    expect((await askJsonRpc('limited', 'bob')).status).toBe(200);
    expect((await askJsonRpc('open', 'alice')).status).toBe(200);
  });

  it('olga’s sixth REST call is 429 with the REST error body; her five went through', async () => {
    const since = peer.requests.length;
    for (let i = 0; i < ALLOWED; i++) expect((await askRest('limited', 'olga')).status, `call ${i + 1}`).toBe(200);
    const refused = await askRest('limited', 'olga');
    expect(refused.status).toBe(429);
    expect(retryAfter(refused)).toBeGreaterThanOrEqual(1);
    expect((refused.json as { error: { details: unknown } }).error.details).toEqual([RATE_INFO]);
    expect(agentCalls(peer, since)).toHaveLength(ALLOWED);
  });

  it('a caller without valid credentials is answered 401, not counted against anyone', async () => {
    const refused = await askJsonRpc('limited', undefined);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('retry-after')).toBeNull();
    // mallory has her full allowance although anonymous calls came first.
    for (let i = 0; i < ALLOWED; i++) expect((await askJsonRpc('limited', 'mallory')).status).toBe(200);
    expect((await askJsonRpc('limited', 'mallory')).status).toBe(429);
  });

  it('the public card is not counted', async () => {
    for (let i = 0; i < ALLOWED + 1; i++) {
      const card = await call(`${endpoints(gateway.url, 'limited').base}.well-known/agent-card.json`, 'alice');
      expect(card.status).toBe(200);
    }
  });
});

describe('rate limit without auth: keyed by the client address', () => {
  let open: RunningGateway;
  beforeAll(async () => {
    open = await startTestGateway(
      { limited: { url: peer.url, rateLimit: LIMIT } },
      { admin: { listen: { host: '127.0.0.1', port: 0 } } },
    );
  });
  afterAll(() => open?.close());

  it('the sixth anonymous call from 127.0.0.1 is 429', async () => {
    const since = peer.requests.length;
    for (let i = 0; i < ALLOWED; i++) expect((await askJsonRpc('limited', undefined, open)).status).toBe(200);
    const refused = await askJsonRpc('limited', undefined, open);
    expect(refused.status).toBe(429);
    expect(retryAfter(refused)).toBeGreaterThanOrEqual(1);
    expect((refused.json as { id: number }).id).toBe(rpcId);
    expect(agentCalls(peer, since)).toHaveLength(ALLOWED);
  });
});
