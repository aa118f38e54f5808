// The 0.3 gRPC surface (package a2a.v1: the SDK 1.3.0 compat server) through the gateway, driven
// by the SDK 1.3.0 client with legacyCompat on the card's 0.3 GRPC interface: proxied, decoded and
// tagged version 0.3 like the other bindings (issue #16 "Done when").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPeerV1 } from '../peers/peer-v1.js';
import type { Peer } from '../peers/peer-common.js';
import { clientV1, sendRequestV1, userMessageV1 } from '../peers/clients.js';
import { collect, within, withDeadline } from '../peers/deadline.js';
import { asMessage, asTask, stateName, texts } from '../peers/inspect.js';
import { startTestGateway } from '../support/gateway.js';
import type { RunningGateway } from '../../src/gateway/gateway.js';
import type { ExchangeRecord } from '../../src/exchange/record.js';

let peer: Peer;
let gw: RunningGateway;

beforeAll(async () => {
  peer = await startPeerV1({ compatV03: true, grpc: true, stepMs: 30 });
  gw = await startTestGateway({ hybrid: { url: peer.url, grpc: { listen: { port: 0 } } } });
});
afterAll(async () => {
  await gw?.close();
  await peer?.close();
});

const client = () =>
  withDeadline(
    clientV1(`${gw.url}/agents/hybrid/`, { transport: 'GRPC', legacyCompat: true, onlyProtocolVersion: '0.3' }),
    5000,
    'card',
  );

async function records(): Promise<ExchangeRecord[]> {
  const res = await fetch(`${gw.adminUrl}/exchanges?limit=100`, within(3000));
  return ((await res.json()) as { exchanges: ExchangeRecord[] }).exchanges;
}

describe('0.3 gRPC (a2a.v1) through the gateway', () => {
  it('rewrites both GRPC interfaces of the hybrid card to the gateway', async () => {
    const res = await fetch(`${gw.url}/agents/hybrid/.well-known/agent-card.json`, {
      headers: { 'A2A-Version': '1.0' },
      ...within(2000),
    });
    const card = (await res.json()) as { supportedInterfaces: { url: string; protocolBinding: string }[] };
    const grpc = card.supportedInterfaces.filter((i) => i.protocolBinding === 'GRPC').map((i) => i.url);
    expect(grpc).toEqual([
      `127.0.0.1:${gw.grpcPorts.agents.get('hybrid')}`,
      `127.0.0.1:${gw.grpcPorts.agents.get('hybrid')}`,
    ]);
  });

  it('decodes and tags a question, a task, GetTask and a stream as 0.3 gRPC exchanges', async () => {
    const c = await client();
    expect([c.transport.protocolName, c.protocolVersion]).toEqual(['GRPC', '0.3']);
    expect(texts(asMessage(await c.sendMessage(sendRequestV1(userMessageV1('hi?')), within(5000))).parts)).toHaveLength(
      1,
    );
    const task = asTask(await c.sendMessage(sendRequestV1(userMessageV1('process this')), within(5000)));
    expect(stateName(task.status?.state)).toBe('COMPLETED');
    await c.getTask({ tenant: '', id: task.id }, within(2000));
    await collect(c.sendMessageStream(sendRequestV1(userMessageV1('stream this')), within(5000)), 5000, 'stream');

    const seen = (await records()).filter((r) => r.a2a?.binding === 'grpc').reverse();
    expect(seen.map((r) => [r.path, r.a2a!.version, r.a2a!.operation, r.a2a!.kind])).toEqual([
      ['/a2a.v1.A2AService/SendMessage', '0.3', 'SendMessage', 'message'],
      ['/a2a.v1.A2AService/SendMessage', '0.3', 'SendMessage', 'task'],
      ['/a2a.v1.A2AService/GetTask', '0.3', 'GetTask', 'task'],
      ['/a2a.v1.A2AService/SendStreamingMessage', '0.3', 'SendStreamingMessage', 'task'],
    ]);
    expect(seen[1]!.a2a!.taskId).toBe(task.id);
    expect(seen.slice(1).every((r) => r.a2a!.state === 'TASK_STATE_COMPLETED')).toBe(true);
    expect(peer.requests.filter((r) => r.path.startsWith('/a2a.v1.A2AService/')).length).toBe(4);
  });
});
