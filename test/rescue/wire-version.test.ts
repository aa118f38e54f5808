/**
 * The rescue reads and writes a send in the version its body is written in (RequestFacts.wireVersion,
 * src/rescue/decision.ts), not the one `A2A-Version` names, over real sockets against real SDK agents:
 * - JSON-RPC `message/send` (0.3) with `A2A-Version: 1.0` and `blocking: false` is a non-blocking
 *   send (the agent reads `blocking`): forwarded as it is, the agent's working task back at once,
 *   recorded as non-blocking, no "blocking send not final" finding; without `blocking: false`
 *   the same call is rescued.
 * - gRPC `a2a.v1` (0.3) SendMessage with `a2a-version: 1.0` is made non-blocking in 0.3's terms
 *   (`blocking = false`): the client gets the task id inside its deadline instead of a timeout.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import type { ClientHttp2Session } from 'node:http2';
import { startPeerV03 } from '../peers/peer-v03.js';
import { startPeerV1 } from '../peers/peer-v1.js';
import type { Peer } from '../peers/peer-common.js';
import { startTestGateway } from '../support/gateway.js';
import type { RunningGateway } from '../../src/gateway/gateway.js';
import type { Exchange } from '../../src/exchange/exchange.js';
import type { ExchangeRecord } from '../../src/exchange/record.js';
import { h2, rawCall, taskIdOf } from '../grpc/support/raw-grpc.js';
import { message03, requestBytes, V03 } from '../a2a/grpc/sdk-wire.js';

const records: ExchangeRecord[] = [];
let v03: Peer;
let hybrid: Peer;
let gateway: RunningGateway;
let session: ClientHttp2Session;

beforeAll(async () => {
  [v03, hybrid] = await Promise.all([
    startPeerV03({ stepMs: 30 }),
    startPeerV1({ compatV03: true, grpc: true, stepMs: 30 }),
  ]);
  const rescue = { enabled: true, clientTimeout: '10s', margin: '500ms', pollInitial: '50ms', pollMax: '200ms' };
  gateway = await startTestGateway(
    {
      v03: { url: v03.url, timeoutRescue: rescue },
      hybrid: { url: hybrid.url, grpc: { listen: { port: 0 } }, timeoutRescue: rescue },
    },
    {},
    [{ onFinish: (ex: Exchange) => void records.push(ex.record) }],
  );
  session = await h2(gateway.grpcPorts.agents.get('hybrid')!);
});
afterAll(async () => {
  session?.close();
  await gateway?.close();
  await Promise.all([v03?.close(), hybrid?.close()]);
});

const send03 = (text: string, configuration?: Record<string, unknown>) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id: 'w1',
    method: 'message/send',
    params: {
      message: { kind: 'message', messageId: `m-${Math.random()}`, role: 'user', parts: [{ kind: 'text', text }] },
      ...(configuration ? { configuration } : {}),
    },
  });

async function post(body: string) {
  const res = await request(`${gateway.url}/agents/v03/a2a/jsonrpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body,
    signal: AbortSignal.timeout(8000),
  });
  const doc = (await res.body.json()) as any;
  const record = records.find((r) => r.a2a?.taskId === doc.result?.id || r.rescue?.taskId === doc.result?.id);
  return { rescued: res.headers['a2a-gateway-rescue'], doc, record };
}

describe('JSON-RPC message/send under A2A-Version 1.0', () => {
  it('with blocking: false is forwarded, not rescued, and recorded as non-blocking', async () => {
    const before = v03.requests.length;
    const { rescued, doc, record } = await post(send03('sleep:1500 runs on', { blocking: false }));
    expect(rescued).toBeUndefined();
    expect(doc.result.kind).toBe('task');
    expect(['submitted', 'working']).toContain(doc.result.status.state);
    expect(record?.rescue).toBeUndefined();
    expect(record?.a2a?.blocking).toBe(false);
    expect(record?.findings.map((f) => f.rule)).not.toContain('a2a.blocking-send-not-final');
    // The agent heard the send once, as the client wrote it: no GetTask, no rewritten body.
    expect(v03.requests.slice(before).filter((r) => r.method === 'POST')).toHaveLength(1);
  });

  it('without it is a blocking send, and rescued', async () => {
    const { rescued, doc, record } = await post(send03('process this'));
    expect(rescued).toBe('settled');
    expect(doc.result.status.state).toBe('completed');
    expect(record?.rescue).toMatchObject({ outcome: 'settled', taskId: doc.result.id });
  });
});

describe('gRPC a2a.v1 SendMessage under a2a-version 1.0', () => {
  it('is sent with 0.3 blocking = false: the client has the task id inside its deadline', async () => {
    const message = message03({ content: [{ part: { $case: 'text', value: 'sleep:1500 runs on' } }] });
    const reply = await rawCall(session, '/a2a.v1.A2AService/SendMessage', {
      headers: { 'a2a-version': '1.0', 'grpc-timeout': '1500m' },
      body: requestBytes(V03.sendMessage!, { request: message }),
      ms: 5000,
    });
    expect(reply.status?.code).toBe(0);
    expect(reply.headers['a2a-gateway-rescue']).toBe('deadline');
    const taskId = taskIdOf(reply.data);
    expect(taskId).toBeTruthy();
    const record = records.find((r) => r.rescue?.taskId === taskId);
    expect(record?.a2a).toMatchObject({ binding: 'grpc', version: '1.0' });
    expect(record?.rescue).toMatchObject({ strategy: 'poll', outcome: 'deadline' });
  });
});
