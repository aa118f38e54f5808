// The official SDK 1.3.0 gRPC client (GrpcTransportFactory), given only the gateway's URL for an
// agent, runs the scenario list through the gateway against the SDK's own gRPC server (issue #16).
// The agent has a gRPC port of its own at the gateway (`grpc.listen`); the card the client reads
// from the gateway points its GRPC interface there.
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { startPeerV1 } from '../peers/peer-v1.js';
import type { Peer } from '../peers/peer-common.js';
import { clientV1 } from '../peers/clients.js';
import { pollUntil, withDeadline } from '../peers/deadline.js';
import { sdkScenariosV1, senderV1 } from '../peers/scenarios.js';
import { asTask } from '../peers/inspect.js';
import { startTestGateway } from '../support/gateway.js';
import type { RunningGateway } from '../../src/gateway/gateway.js';
import type { ExchangeRecord } from '../../src/exchange/record.js';

let peer: Peer;
let gw: RunningGateway;

beforeAll(async () => {
  peer = await startPeerV1({ stepMs: 30, slowMs: 400, extendedCard: true, grpc: true });
  gw = await startTestGateway(
    { reviewer: { url: peer.url, grpc: { listen: { port: 0 } } } },
    // The push round trip's webhook is on loopback (the peer never calls it: the task is parked).
    { pushNotifications: { allow: ['127.0.0.1/32'] } },
  );
});
afterAll(async () => {
  await gw?.close();
  await peer?.close();
});

const client = () => withDeadline(clientV1(`${gw.url}/agents/reviewer/`, { transport: 'GRPC' }), 5000, 'card');

async function records(): Promise<ExchangeRecord[]> {
  const res = await fetch(`${gw.adminUrl}/exchanges?limit=500`, { signal: AbortSignal.timeout(3000) });
  return ((await res.json()) as { exchanges: ExchangeRecord[] }).exchanges;
}

describe('SDK 1.3.0 gRPC client through the gateway', () => {
  it('reads a card whose GRPC interface is the gateway', async () => {
    const res = await fetch(`${gw.url}/agents/reviewer/.well-known/agent-card.json`, {
      signal: AbortSignal.timeout(3000),
    });
    const card = (await res.json()) as { supportedInterfaces: { url: string; protocolBinding: string }[] };
    const grpc = card.supportedInterfaces.find((i) => i.protocolBinding === 'GRPC');
    expect(grpc?.url).toBe(`127.0.0.1:${gw.grpcPorts.agents.get('reviewer')}`);
  });

  sdkScenariosV1(client, { transport: 'GRPC', extendedCard: true, pushWebhook: 'http://127.0.0.1:9/hook' });

  it('went through the gateway: every gRPC call is an exchange tagged binding grpc', async () => {
    const grpc = (await records()).filter((r) => r.a2a?.binding === 'grpc');
    const agentCalls = peer.requests.filter((r) => r.path.startsWith('/lf.a2a.v1.A2AService/'));
    expect(grpc.length).toBeGreaterThanOrEqual(agentCalls.length);
    const kinds = new Set(grpc.map((r) => `${r.a2a!.operation}:${r.a2a!.kind}`));
    expect(kinds).toContain('SendMessage:message');
    expect(kinds).toContain('SendMessage:task');
    expect(kinds).toContain('GetTask:error');
    expect(
      grpc.some((r) => r.a2a?.operation === 'SendStreamingMessage' && r.a2a.state === 'TASK_STATE_COMPLETED'),
    ).toBe(true);
  });
});

describe('gRPC exchanges in the metrics', () => {
  it('counts each call with binding="grpc", its kind and its operation', async () => {
    const send = senderV1(client);
    const task = asTask(await send('counted task'));
    await send('counted question?');
    await (await client()).getTask({ tenant: '', id: task.id, historyLength: 0 });
    const text = await (await fetch(gw.metricsUrl!, { signal: AbortSignal.timeout(3000) })).text();
    const lines = text.split('\n').filter((l) => l.startsWith('a2a_requests_total{') && l.includes('binding="grpc"'));
    expect(lines.some((l) => l.includes('method="SendMessage"') && l.includes('kind="message"'))).toBe(true);
    expect(lines.some((l) => l.includes('method="SendMessage"') && l.includes('kind="task"'))).toBe(true);
    expect(lines.some((l) => l.includes('method="GetTask"'))).toBe(true);
  });
});

describe('gRPC exchanges in the access log and the task stories', () => {
  it('logs each call with binding grpc, its kind and final state, and follows its task', async () => {
    const lines: string[] = [];
    const logger = pino(
      { level: 'info' },
      new Writable({ write: (chunk, _e, done) => (lines.push(String(chunk)), done()) }),
    );
    const logged = await startTestGateway(
      { reviewer: { url: peer.url, grpc: { listen: { port: 0 } } } },
      {},
      [],
      logger,
    );
    try {
      const c = await withDeadline(clientV1(`${logged.url}/agents/reviewer/`, { transport: 'GRPC' }), 5000, 'card');
      const task = asTask(await senderV1(async () => c)('a task over grpc'));
      await pollUntil(
        () => Promise.resolve(lines.filter((l) => l.includes('"binding":"grpc"')).length),
        (n) => n >= 1,
        3000,
        'the access log line',
      );
      const line = JSON.parse(lines.find((l) => l.includes('"binding":"grpc"'))!) as Record<string, unknown>;
      expect(line).toMatchObject({
        agent: 'reviewer',
        method: 'SendMessage',
        binding: 'grpc',
        kind: 'task',
        state: 'TASK_STATE_COMPLETED',
        taskId: task.id,
      });
      const story = await fetch(`${logged.adminUrl}/tasks/reviewer/${task.id}`, { signal: AbortSignal.timeout(3000) });
      const body = (await story.json()) as { states: { state: string }[] };
      expect(body.states.map((s) => s.state).at(-1)).toBe('TASK_STATE_COMPLETED');
    } finally {
      await logged.close();
    }
  });
});
