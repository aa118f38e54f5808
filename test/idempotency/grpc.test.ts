/**
 * Idempotent sends on the gRPC binding: the SDK's gRPC client through the gateway's gRPC listener
 * to a counting SDK agent. A retried send (same request, same messageId) gets the same task, a
 * Message is replayed, the agent runs each once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientV1, sendRequestV1, userMessageV1 } from '../peers/clients.js';
import { withDeadline } from '../peers/deadline.js';
import { asTask, stateName } from '../peers/inspect.js';
import { startTestGateway } from '../support/gateway.js';
import type { RunningGateway } from '../../src/gateway/gateway.js';
import type { Exchange } from '../../src/exchange/exchange.js';
import type { ExchangeRecord } from '../../src/exchange/record.js';
import { startCountingAgent, type CountingAgent } from './support/counting-agent.js';

let agent: CountingAgent;
let gw: RunningGateway;
const records: ExchangeRecord[] = [];

beforeAll(async () => {
  agent = await startCountingAgent({ grpc: true });
  gw = await startTestGateway(
    { counted: { url: agent.url, grpc: { listen: { port: 0 } }, idempotency: { enabled: true } } },
    {},
    [{ onFinish: (ex: Exchange) => void records.push(ex.record) }],
  );
});
afterAll(async () => {
  await gw?.close();
  await agent?.close();
});

const client = () =>
  withDeadline(
    clientV1(`${gw.url}/agents/counted/`, { transport: 'GRPC', grpcCallOptions: { deadline: Date.now() + 10_000 } }),
    5000,
    'card',
  );
const grpcRecords = (messageId: string) =>
  records.filter((r) => r.a2a?.binding === 'grpc' && r.a2a.messageId === messageId);

describe('over gRPC', () => {
  it('a retried blocking send: the same task, one send at the agent', async () => {
    const c = await client();
    const request = sendRequestV1(userMessageV1('grpc job'));
    const first = asTask(await c.sendMessage(request));
    const again = asTask(await c.sendMessage(request));
    expect(again.id).toBe(first.id);
    expect(stateName(again.status?.state)).toBe('COMPLETED');
    const messageId = request.message!.messageId;
    expect(agent.sends.get(messageId)).toBe(1);
    expect(grpcRecords(messageId).map((r) => r.idempotency?.outcome)).toEqual(['first', 'replayed']);
  });

  it('a Message outcome is replayed as the agent sent it', async () => {
    const c = await client();
    const request = sendRequestV1(userMessageV1('grpc question?'));
    const first = await c.sendMessage(request);
    const again = await c.sendMessage(request);
    expect('parts' in again && 'role' in again).toBe(true);
    expect(again).toEqual(first);
    expect(agent.sends.get(request.message!.messageId)).toBe(1);
  });
});
