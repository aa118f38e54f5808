/**
 * Passive health over the gRPC binding (docs/fleet.md "Health"): the gRPC relay records the
 * replica's HTTP status like the HTTP forwarder, so an answered gRPC call counts for its replica
 * (and resets its failures); a replica whose gRPC address refuses connections is ejected. The
 * official SDK's gRPC client and server, over loopback.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPeerV1 } from '../peers/peer-v1.js';
import type { Peer } from '../peers/peer-common.js';
import { clientV1, sendRequestV1, userMessageV1 } from '../peers/clients.js';
import { within, withDeadline } from '../peers/deadline.js';
import { asTask } from '../peers/inspect.js';
import { deadUrl } from '../support/scripted-upstream.js';
import { startTestGateway } from '../support/gateway.js';
import type { RunningGateway } from '../../src/gateway/gateway.js';
import type { ExchangeObserver } from '../../src/exchange/exchange.js';
import { outcomeOf } from '../../src/fleet/observer.js';

let peer: Peer;
let gw: RunningGateway;
let dead: string;
const outcomes: Array<{ binding?: string; replica?: string; status?: number; outcome?: string }> = [];

const recorder: ExchangeObserver = {
  name: 'test-outcomes',
  onFinish(exchange) {
    outcomes.push({
      binding: exchange.record.a2a?.binding,
      replica: exchange.replica?.url,
      status: exchange.replicaStatus,
      outcome: outcomeOf(exchange),
    });
  },
};

beforeAll(async () => {
  peer = await startPeerV1({ stepMs: 5, grpc: true });
  dead = await deadUrl();
  const upstreams = [
    { url: peer.url, grpc: peer.grpcUrl },
    { url: dead, grpc: new URL(dead).host },
  ];
  gw = await startTestGateway(
    { echo: { upstreams, grpc: { listen: { port: 0 } }, health: { enabled: false, consecutiveFailures: 1 } } },
    {},
    [recorder],
  );
});

afterAll(async () => {
  await gw?.close();
  await peer?.close();
});

describe('passive health over gRPC', () => {
  it('counts an answered gRPC call for its replica and ejects the one that refuses connections', async () => {
    const client = await withDeadline(clientV1(`${gw.url}/agents/echo/`, { transport: 'GRPC' }), 5000, 'card');
    for (let i = 0; i < 4; i++) {
      await client.sendMessage(sendRequestV1(userMessageV1(`process this ${i}`)), within(5000)).then(
        (r) => asTask(r),
        () => undefined, // the dead replica's call fails: UNAVAILABLE
      );
    }
    const grpc = outcomes.filter((o) => o.binding === 'grpc');
    expect(grpc.filter((o) => o.replica === peer.url && o.status === 200 && o.outcome === 'ok').length).toBeGreaterThan(
      0,
    );
    expect(grpc.filter((o) => o.replica === dead && o.outcome === 'failure')).toHaveLength(1);
    const res = await fetch(`${gw.adminUrl}/admin/replicas`);
    const body = (await res.json()) as { agents: Array<{ replicas: Array<{ url: string; state: string }> }> };
    expect(body.agents[0]!.replicas.map((r) => [r.url, r.state])).toEqual([
      [peer.url, 'healthy'],
      [dead, 'ejected'],
    ]);
  });
});
