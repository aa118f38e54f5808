/**
 * Idempotent sends while the shared store is down (docs/fleet.md, failure semantics): a real
 * redis-server, stopped mid-test. Fail open by default — the send goes to the agent, counted as
 * `unavailable` — and with `failClosed` a 503 STATE_UNAVAILABLE in the caller's protocol.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type TestRedis } from '../support/redis-server.js';
import { startTestGateway } from '../support/gateway.js';
import type { RunningGateway } from '../../src/gateway/gateway.js';
import type { Exchange } from '../../src/exchange/exchange.js';
import type { ExchangeRecord } from '../../src/exchange/record.js';
import { until } from '../state/support/stores.js';
import { startCountingAgent, type CountingAgent } from './support/counting-agent.js';
import { sendJsonRpc, taskOf } from './support/rpc.js';

let redis: TestRedis;
let agent: CountingAgent;
let gw: RunningGateway;
const records: ExchangeRecord[] = [];

beforeAll(async () => {
  [redis, agent] = await Promise.all([startRedis(), startCountingAgent()]);
  gw = await startTestGateway(
    {
      open: { url: agent.url, idempotency: { enabled: true } },
      closed: { url: agent.url, idempotency: { enabled: true, failClosed: true } },
    },
    { state: { store: 'redis', redis: { url: redis.url } } },
    [{ onFinish: (ex: Exchange) => void records.push(ex.record) }],
  );
});
afterAll(async () => {
  await gw?.close();
  await agent?.close();
  await redis?.stop();
});

const at = (name: string) => `${gw.url}/agents/${name}`;
const outcomeOf = (messageId: string) => records.find((r) => r.a2a?.messageId === messageId)?.idempotency?.outcome;

describe('Redis down', () => {
  it('fails open by default, closed with failClosed; idempotent again once it is back', async () => {
    // Up (once the gateway's connection is ready): the store answers.
    await until(async () => {
      const up = randomUUID();
      await sendJsonRpc(at('open'), 'up', { messageId: up });
      return outcomeOf(up) === 'first';
    }, 'the store up');

    await redis.stop();
    try {
      const open = randomUUID();
      await until(async () => {
        await sendJsonRpc(at('open'), 'down', { messageId: open });
        return records.filter((r) => r.a2a?.messageId === open).some((r) => r.idempotency?.outcome === 'unavailable');
      }, 'the store seen down');
      expect((agent.sends.get(open) ?? 0) >= 1).toBe(true);

      const closed = await sendJsonRpc(at('closed'), 'down', { id: 'c-1' });
      expect(closed.status).toBe(503);
      expect(closed.body['id']).toBe('c-1');
      expect(JSON.stringify(closed.body['error'])).toContain('STATE_UNAVAILABLE');
    } finally {
      await redis.start();
    }
    const back = randomUUID();
    await until(async () => {
      const answer = await sendJsonRpc(at('closed'), 'back', { messageId: back });
      return answer.status === 200;
    }, 'the store back');
    const first = records.filter((r) => r.a2a?.messageId === back).at(-1)!;
    expect(first.idempotency?.outcome).toBe('first');
    const again = await sendJsonRpc(at('closed'), 'back', { messageId: back });
    expect(again.headers.get('a2a-gateway-idempotent')).toBe('replayed');
    expect(taskOf(again).id).toBe(first.a2a?.taskId);
    expect(agent.sends.get(back)).toBe(1);
  });
});
