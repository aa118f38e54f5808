/**
 * Stream resume when Redis goes away (docs/fleet.md "Stream resume", failure semantics): streams
 * flow on unchanged with their ids while every window write fails (counted, never waited for),
 * and a resume is then answered RESUME_WINDOW_EXCEEDED (fail open), or 503 STATE_UNAVAILABLE for
 * an agent with `failClosed` (the client retries with the same id).
 * Runs the built CLI (`npm test` builds first).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type TestRedis } from '../support/redis-server.js';
import { startReadyGateway, type GatewayProcess } from '../state/support/replicas.js';
import { EVENTS, startCountingAgent, type CountingAgent } from './support/counting-agent.js';
import { postSse } from './support/sse-client.js';
import { sendBody, wireHeaders } from './support/wire.js';

let redis: TestRedis;
let agent: CountingAgent;
let gateway: GatewayProcess;

beforeAll(async () => {
  redis = await startRedis();
  agent = await startCountingAgent(5);
  gateway = await startReadyGateway(`state:
  store: redis
  redis: { url: "${redis.url}" }
agents:
  open:
    url: "${agent.url}"
    resume: { enabled: true }
  closed:
    url: "${agent.url}"
    resume: { enabled: true, failClosed: true }
`);
}, 30_000);

afterAll(async () => {
  await gateway?.stop();
  await agent?.close();
  await redis?.stop();
});

const failures = async () => {
  const text = await (await fetch(`${gateway.adminUrl}/metrics`)).text();
  return Number(/^a2a_resume_window_write_failures_total (\d+)/m.exec(text)?.[1]);
};

describe('stream resume with Redis down', () => {
  it('relays every event with its id, counts the failed window writes, and answers resumes in protocol', async () => {
    await redis.stop();
    const { path, body } = sendBody('jsonrpc-1.0', randomUUID());
    const stream = await postSse(`${gateway.url}/agents/open${path}`, body, wireHeaders('jsonrpc-1.0'));
    const events = await stream.rest();
    expect(events).toHaveLength(EVENTS);
    expect(events.map((e) => Number(e.id!.split('.')[2]))).toEqual(events.map((_, i) => i + 1));
    expect(await failures()).toBeGreaterThan(0);

    const last = { ...wireHeaders('jsonrpc-1.0'), 'last-event-id': events[3]!.id! };
    const open = await postSse(`${gateway.url}/agents/open${path}`, body, last);
    await open.rest();
    expect(JSON.parse(open.raw().toString()).error.data[0].reason).toBe('RESUME_WINDOW_EXCEEDED');
    const closed = await postSse(`${gateway.url}/agents/closed${path}`, body, last);
    await closed.rest();
    expect(closed.status).toBe(503);
    expect(JSON.parse(closed.raw().toString()).error.data[0].reason).toBe('STATE_UNAVAILABLE');
  });
});
