// Mixed fleets (docs/translation.md): the official SDKs of each version as clients against the
// other version's SDK agent, through a gateway with `translate`. The same scenario suites the
// peers pass natively (test/peers/scenarios.ts) must pass across versions.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UnsupportedOperationError } from '@a2a-js/sdk/errors';
import { startPeerV1 } from '../peers/peer-v1.js';
import { startPeerV03 } from '../peers/peer-v03.js';
import type { Peer } from '../peers/peer-common.js';
import { clientV03, clientV1, type TransportName } from '../peers/clients.js';
import { within, withDeadline } from '../peers/deadline.js';
import { listAllTasks, sdkScenariosV03, sdkScenariosV1 } from '../peers/scenarios.js';
import { startTestGateway } from '../support/gateway.js';
import type { RunningGateway } from '../../src/gateway/gateway.js';

const STEP = 30;
const TRANSPORTS: TransportName[] = ['JSONRPC', 'HTTP+JSON'];

async function gatewayFor(peer: Peer, agentVersion: '0.3' | '1.0'): Promise<RunningGateway> {
  // The push-config round trip names a loopback webhook (never called: the task is parked).
  const pushNotifications = { allow: ['127.0.0.1/32'] };
  return startTestGateway({ peer: { url: peer.url, translate: { agentVersion } } }, { pushNotifications });
}

describe.each(TRANSPORTS)('SDK 1.3.0 client → gateway → SDK 0.3.14 agent over %s', (transport) => {
  let peer: Peer;
  let gateway: RunningGateway;
  beforeAll(async () => {
    peer = await startPeerV03({ stepMs: STEP, extendedCard: true });
    gateway = await gatewayFor(peer, '0.3');
  });
  afterAll(async () => {
    await gateway?.close();
    await peer?.close();
  });
  const base = () => `${gateway.url}/agents/peer/`;
  const client = () => withDeadline(clientV1(base(), { transport }), 5000, 'card resolution');

  sdkScenariosV1(client, {
    transport,
    listTasks: false,
    pushWebhook: 'http://127.0.0.1:9/hook',
    extendedCard: true,
    peerName: 'a2a-js peer (SDK 0.3.14)',
  });

  it('refuses ListTasks, which A2A 0.3 does not have, with UnsupportedOperation', async () => {
    const asked = listAllTasks(await client());
    await expect(asked).rejects.toBeInstanceOf(UnsupportedOperationError);
  });

  it('records both sides of a translated exchange', async () => {
    const c = await client();
    await c.getTask({ tenant: '', id: 'no-such-task' }, within(2000)).catch(() => undefined);
    const res = await fetch(`${gateway.adminUrl}/exchanges?limit=5`, within(2000));
    const { exchanges } = (await res.json()) as { exchanges: { translation?: unknown; operation?: string }[] };
    expect(exchanges.find((e) => e.translation)).toMatchObject({
      translation: { caller: '1.0', agent: '0.3', outcome: 'translated' },
    });
  });
});

describe.each(TRANSPORTS)('SDK 0.3.14 client → gateway → SDK 1.3.0 agent (1.0 only) over %s', (transport) => {
  let peer: Peer;
  let gateway: RunningGateway;
  beforeAll(async () => {
    peer = await startPeerV1({ stepMs: STEP, extendedCard: true });
    gateway = await gatewayFor(peer, '1.0');
  });
  afterAll(async () => {
    await gateway?.close();
    await peer?.close();
  });
  const client = () => withDeadline(clientV03(`${gateway.url}/agents/peer/`, { transport }), 5000, 'card resolution');

  sdkScenariosV03(client, { transport, extendedCard: true, peerName: 'a2a-js peer (SDK 1.3.0)' });
});
