/**
 * The official SDK clients, given only `http://<gateway>/agents/{name}/`, run every A2A operation
 * against real SDK agents (1.3.0 = A2A 1.0, 0.3.14 = A2A 0.3) through the gateway. Each suite
 * ends by proving the agent saw only the gateway: every request it received after the card
 * carries the gateway's X-Forwarded-For.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPeerV1 } from '../peers/peer-v1.js';
import { startPeerV03 } from '../peers/peer-v03.js';
import type { Peer } from '../peers/peer-common.js';
import { clientV03, clientV1, sendParamsV03, userMessageV03, type TransportName } from '../peers/clients.js';
import { within, withDeadline } from '../peers/deadline.js';
import { sdkScenariosV03, sdkScenariosV1, task03 } from '../peers/scenarios.js';
import { startTestGateway } from '../support/gateway.js';
import type { RunningGateway } from '../../src/gateway/gateway.js';

const STEP = 30;
const TRANSPORTS: TransportName[] = ['JSONRPC', 'HTTP+JSON'];

function expectOnlyGatewayTraffic(peer: Peer, since: number) {
  const seen = peer.requests.slice(since);
  expect(seen.length).toBeGreaterThan(0);
  for (const r of seen) {
    // Either the gateway's own card fetch, or a client request it forwarded.
    if (r.path.includes('/.well-known/')) expect(r.headers['user-agent'], r.path).toMatch(/^a2a-gateway\//);
    else expect(r.headers['x-forwarded-for'], `${r.method} ${r.path}`).toBe('127.0.0.1');
  }
  expect(seen.some((r) => !r.path.includes('/.well-known/'))).toBe(true);
}

describe.each(TRANSPORTS)('A2A 1.0 through the gateway over %s', (transport) => {
  let peer: Peer;
  let gateway: RunningGateway;
  let since = 0;
  beforeAll(async () => {
    peer = await startPeerV1({ stepMs: STEP });
    gateway = await startTestGateway({ reviewer: { url: peer.url } });
    since = peer.requests.length;
  });
  afterAll(async () => {
    await gateway.close();
    await peer.close();
  });
  const client = () =>
    withDeadline(clientV1(`${gateway.url}/agents/reviewer/`, { transport }), 5000, 'card via gateway');
  it('resolves the card at the gateway and calls the gateway', async () => {
    const c = await client();
    expect(c.transport.protocolName).toBe(transport);
    const card = await c.getAgentCard(within(2000));
    for (const i of card.supportedInterfaces) expect(i.url.startsWith(`${gateway.url}/agents/reviewer/`)).toBe(true);
  });

  sdkScenariosV1(client);

  it('never let the client around the gateway', () => {
    expectOnlyGatewayTraffic(peer, since);
  });
});

describe.each(TRANSPORTS)('A2A 0.3 through the gateway over %s', (transport) => {
  let peer: Peer;
  let gateway: RunningGateway;
  let since = 0;
  beforeAll(async () => {
    peer = await startPeerV03({ stepMs: STEP });
    gateway = await startTestGateway({ legacy: { url: peer.url } });
    since = peer.requests.length;
  });
  afterAll(async () => {
    await gateway.close();
    await peer.close();
  });
  const client = () =>
    withDeadline(clientV03(`${gateway.url}/agents/legacy/`, { transport }), 5000, 'card via gateway');
  sdkScenariosV03(client, { transport });

  it('never let the client around the gateway', () => {
    expectOnlyGatewayTraffic(peer, since);
  });
});

describe('0.3 client through the gateway to a 1.3.0 agent in compat mode', () => {
  it('gets the hybrid card rewritten and completes a task over JSON-RPC', async () => {
    const peer = await startPeerV1({ compatV03: true, stepMs: STEP });
    const gateway = await startTestGateway({ mixed: { url: peer.url } });
    try {
      const c = await withDeadline(clientV03(`${gateway.url}/agents/mixed/`, { transport: 'JSONRPC' }), 5000, 'card');
      const result = await c.sendMessage(sendParamsV03(userMessageV03('process this')), within(5000));
      expect(task03(result).status.state).toBe('completed');
      expect(
        peer.requests.filter((r) => r.method === 'POST').every((r) => r.headers['x-forwarded-for'] === '127.0.0.1'),
      ).toBe(true);
    } finally {
      await gateway.close();
      await peer.close();
    }
  });
});
