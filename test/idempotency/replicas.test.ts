/**
 * Issue 27's "done when" for idempotent sends: a retried blocking send with the same messageId
 * yields one task at the agent, with `state.store: redis` shared by two gateway processes (the
 * built CLI, dist/cli.js: run `npm run build` first) on one real redis-server. The retry goes
 * through the other gateway: while the first is in flight (it waits, polling Redis) and after.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type TestRedis } from '../support/redis-server.js';
import { pollUntil } from '../peers/deadline.js';
import { startGatewayProcess, sumOf, type GatewayProcess, waitReady } from '../state/support/replicas.js';
import { startCountingAgent, type CountingAgent } from './support/counting-agent.js';
import { sendJsonRpc, sendRest, taskOf } from './support/rpc.js';

let redis: TestRedis;
let agent: CountingAgent;
let gateways: GatewayProcess[] = [];

const config = () => `listen: { host: 127.0.0.1, port: 0 }
admin: { listen: { host: 127.0.0.1, port: 0 } }
shutdown: { grace: 2s }
log: { access: false }
state:
  store: redis
  redis: { url: "${redis.url}", required: true } # readiness waits for the connection (waitReady)
agents:
  counted:
    url: "${agent.url}"
    idempotency: { enabled: true }
`;

beforeAll(async () => {
  [redis, agent] = await Promise.all([startRedis(), startCountingAgent()]);
  gateways = await Promise.all([startGatewayProcess(config()), startGatewayProcess(config())]);
  // Redis connected on both before the first send: a store not yet up fails open (a second task).
  await Promise.all(gateways.map(waitReady));
}, 30_000);
afterAll(async () => {
  await Promise.all(gateways.map((g) => g.stop()));
  await agent?.close();
  await redis?.stop();
});

const at = (g: GatewayProcess) => `${g.url}/agents/counted`;
const sendsOf = (messageId: string) => agent.sends.get(messageId) ?? 0;
const summed = async (outcome: string) => {
  const texts = await Promise.all(gateways.map((g) => fetch(`${g.adminUrl}/metrics`).then((r) => r.text())));
  return texts.reduce((n, t) => n + sumOf(t, 'a2a_idempotent_sends_total', { agent: 'counted', outcome }), 0);
};

describe('two gateways on one Redis', () => {
  it('a blocking send retried through the other gateway after it completed: the same task, one at the agent', async () => {
    const [a, b] = gateways as [GatewayProcess, GatewayProcess];
    const messageId = randomUUID();
    const first = await sendJsonRpc(at(a), 'once', { messageId, id: 1 });
    const again = await sendJsonRpc(at(b), 'once', { messageId, id: 2 });
    expect(taskOf(again).id).toBe(taskOf(first).id);
    expect(again.body['id']).toBe(2);
    expect(again.headers.get('a2a-gateway-idempotent')).toBe('replayed');
    expect(sendsOf(messageId)).toBe(1);
  });

  it('a duplicate through the other gateway while the first is in flight waits for it: the same task', async () => {
    const [a, b] = gateways as [GatewayProcess, GatewayProcess];
    const messageId = randomUUID();
    const first = sendRest(at(a), 'wait:1000 long', { messageId });
    await pollUntil(
      async () => sendsOf(messageId),
      (n) => n > 0,
      5000,
      'the first at the agent',
    );
    const again = await sendRest(at(b), 'wait:1000 long', { messageId });
    expect(taskOf(again).id).toBe(taskOf(await first).id);
    expect(taskOf(again).status.state).toBe('TASK_STATE_COMPLETED');
    expect(sendsOf(messageId)).toBe(1);
    expect(await summed('waited')).toBeGreaterThanOrEqual(1);
  });

  it('a Message outcome is replayed by the other gateway in its caller id', async () => {
    const [a, b] = gateways as [GatewayProcess, GatewayProcess];
    const messageId = randomUUID();
    const first = await sendJsonRpc(at(a), 'shared?', { messageId, id: 'one' });
    const again = await sendJsonRpc(at(b), 'shared?', { messageId, id: 'two' });
    expect(again.body['id']).toBe('two');
    expect(again.body['result']).toEqual(first.body['result']);
    expect(sendsOf(messageId)).toBe(1);
  });
});
