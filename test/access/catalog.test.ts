/**
 * The public catalog on the traffic listener (`GET /agents`) with `auth` on lists only the agents
 * the caller may use (src/access/gate.ts `mayList`); an anonymous caller, or one with a wrong
 * key, sees none. Without `auth` every agent is listed (test/gateway/admin-listener.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../src/gateway/gateway.js';
import { startTestGateway } from '../support/gateway.js';
import { deadUrl } from '../support/scripted-upstream.js';
import { clientAddress } from '../../src/transport/peer.js';
import type { ClientCall } from '../../src/exchange/call.js';

let gateway: RunningGateway;

beforeAll(async () => {
  const url = await deadUrl(); // cards are not needed to decide who may see an agent
  gateway = await startTestGateway(
    {
      teamA: { url, access: { allow: ['team-a'] } },
      opsOnly: { url, access: { allow: ['ops'] } },
      anyone: { url },
      // `allow: []`: no one, but for the operations `methods` names.
      cancelByOps: { url, access: { allow: [], methods: { CancelTask: ['ops'] } } },
    },
    {
      auth: {
        apiKeys: {
          planner: { key: 'planner-key-0123456789', groups: ['team-a'] },
          'ops-bot': { key: 'ops-bot-key-0123456789', groups: ['ops'] },
        },
      },
    },
  );
});
afterAll(() => gateway.close());

async function listed(headers: Record<string, string> = {}): Promise<string[]> {
  const res = await fetch(`${gateway.url}/agents`, { headers });
  expect(res.status).toBe(200);
  return ((await res.json()) as { agents: Array<{ name: string }> }).agents.map((a) => a.name);
}

describe('the public catalog with auth on', () => {
  it('lists for each caller the agents it may use, one operation being enough', async () => {
    expect(await listed({ 'x-api-key': 'planner-key-0123456789' })).toEqual(['teamA', 'anyone']);
    expect(await listed({ authorization: 'Bearer ops-bot-key-0123456789' })).toEqual([
      'opsOnly',
      'anyone',
      'cancelByOps',
    ]);
  });

  it('lists nothing to an anonymous caller or a wrong key', async () => {
    expect(await listed()).toEqual([]);
    expect(await listed({ 'x-api-key': 'not-a-key-0123456789' })).toEqual([]);
  });
});

describe('clientAddress (the rate-limit key without auth)', () => {
  const req = (remoteAddress: string, xff?: string) =>
    ({ remoteAddress, headers: xff ? { 'x-forwarded-for': xff } : {} }) as Pick<
      ClientCall,
      'remoteAddress' | 'headers'
    >;

  it('is the peer, unless the peer is a trusted proxy: then the address it appended last', () => {
    expect(clientAddress(req('::ffff:10.0.0.9', '1.2.3.4'), false)).toBe('10.0.0.9');
    expect(clientAddress(req('10.0.0.5', 'forged, 203.0.113.7'), true)).toBe('203.0.113.7');
    expect(clientAddress(req('10.0.0.5'), true)).toBe('10.0.0.5');
  });
});
