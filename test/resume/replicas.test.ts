/**
 * Stream resume across gateway processes (docs/fleet.md "Stream resume"): the official SDK agent
 * streams 26 events per task; two gateway processes (the built CLI) share one real
 * redis-server. A client's stream through gateway A is cut at a random event; the client
 * reconnects through gateway B with `Last-Event-ID` — sending the same SendStreamingMessage
 * again, or SubscribeToTask — and must get every later event exactly once, in order, with the
 * data bytes the agent sent, while the agent never sees the message twice.
 * Runs the built CLI (`npm test` builds first).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventSourceMessage } from 'eventsource-parser';
import { startRedis, type TestRedis } from '../support/redis-server.js';
import { pollUntil } from '../peers/deadline.js';
import { startGatewayProcess, type GatewayProcess, waitReady } from '../state/support/replicas.js';
import { EVENTS, startCountingAgent, type CountingAgent } from './support/counting-agent.js';
import { eventData, postSse } from './support/sse-client.js';
import { sendBody, subscribeBody, wireHeaders, type Wire } from './support/wire.js';

let redis: TestRedis;
let agent: CountingAgent;
let a: GatewayProcess;
let b: GatewayProcess;

function config(): string {
  return `listen: { host: 127.0.0.1, port: 0 }
admin: { listen: { host: 127.0.0.1, port: 0 } }
shutdown: { grace: 1s }
log: { access: false }
state:
  store: redis
  redis: { url: "${redis.url}", required: true } # readiness waits for the connection (waitReady)
agents:
  counter:
    url: "${agent.url}"
    resume: { enabled: true, grace: 30s, window: { events: 64 } }
  short:
    url: "${agent.url}"
    resume: { enabled: true, window: { events: 4 } }
`;
}

beforeAll(async () => {
  redis = await startRedis();
  agent = await startCountingAgent(25);
  [a, b] = await Promise.all([startGatewayProcess(config()), startGatewayProcess(config())]);
  for (const g of [a, b]) {
    await waitReady(g);
  }
}, 30_000);

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await agent?.close();
  await redis?.stop();
});

/** The data of each event the agent wrote on the one answer whose request body holds `marker`. */
async function agentEvents(marker: string): Promise<string[]> {
  const answer = await pollUntil(
    () => Promise.resolve(agent.answers.find((r) => r.body.includes(marker))),
    (r) => r !== undefined && eventData(r.bytes()).length === EVENTS,
    15_000,
    'the agent to finish its stream',
  );
  return eventData(answer!.bytes());
}

/** Reads `n` events of a stream, then cuts its connection. */
async function readThenCut(url: string, body: string, n: number, wire: Wire): Promise<EventSourceMessage[]> {
  const first = await postSse(url, body, wireHeaders(wire));
  expect(first.status).toBe(200);
  const got: EventSourceMessage[] = [];
  while (got.length < n) got.push((await first.next())!);
  first.cut();
  return got;
}

function expectExactlyOnce(events: readonly EventSourceMessage[], sent: readonly string[]): void {
  expect(events.map((e) => e.data)).toEqual(sent);
  const seqs = events.map((e) => Number(e.id!.split('.')[2]));
  expect(seqs).toEqual(sent.map((_, i) => i + 1));
}

const WIRES: readonly Wire[] = ['jsonrpc-1.0', 'rest-1.0', 'jsonrpc-0.3', 'rest-0.3'];

describe('stream resume across two gateway processes on one Redis', () => {
  for (const wire of WIRES) {
    it(`${wire}: SendStreamingMessage sent again with Last-Event-ID through the other gateway`, async () => {
      const marker = randomUUID();
      const { path, body } = sendBody(wire, marker);
      const cutAt = 2 + Math.floor(Math.random() * (EVENTS - 4));
      const before = await readThenCut(`${a.url}/agents/counter${path}`, body, cutAt, wire);
      const headers = { ...wireHeaders(wire), 'last-event-id': before.at(-1)!.id! };
      const resumed = await postSse(`${b.url}/agents/counter${path}`, body, headers);
      expect(resumed.status).toBe(200);
      const after = await resumed.rest();
      expectExactlyOnce([...before, ...after], await agentEvents(marker));
      expect(agent.answers.filter((r) => r.body.includes(marker))).toHaveLength(1); // never sent again
    });
  }

  it('SubscribeToTask with Last-Event-ID through the other gateway, after the stream completed', async () => {
    const marker = randomUUID();
    const { path, body } = sendBody('jsonrpc-1.0', marker);
    const before = await readThenCut(`${a.url}/agents/counter${path}`, body, 3, 'jsonrpc-1.0');
    const sent = await agentEvents(marker); // the agent has finished: the rest comes from the window
    const taskId = JSON.parse(before[0]!.data).result.task.id as string;
    const sub = subscribeBody('jsonrpc-1.0', taskId);
    const resumed = await postSse(`${b.url}/agents/counter${sub.path}`, sub.body, {
      ...wireHeaders('jsonrpc-1.0'),
      'last-event-id': before[2]!.id!,
    });
    expect(resumed.status).toBe(200);
    expectExactlyOnce([...before, ...(await resumed.rest())], sent);
    expect(agent.answers.filter((r) => r.body.includes(taskId) && r.body.includes('SubscribeToTask'))).toHaveLength(0);
  });

  it('a Last-Event-ID older than the window is RESUME_WINDOW_EXCEEDED, in the caller protocol', async () => {
    const marker = randomUUID();
    const { path, body } = sendBody('jsonrpc-1.0', marker);
    const before = await readThenCut(`${a.url}/agents/short${path}`, body, 2, 'jsonrpc-1.0');
    await agentEvents(marker);
    const resumed = await postSse(`${b.url}/agents/short${path}`, body, {
      ...wireHeaders('jsonrpc-1.0'),
      'last-event-id': before[1]!.id!,
    });
    const answer = JSON.parse(resumed.raw().toString() || (await resumed.rest(), resumed.raw().toString()));
    expect(answer.error.data[0].reason).toBe('RESUME_WINDOW_EXCEEDED');
    expect(agent.answers.filter((r) => r.body.includes(marker))).toHaveLength(1);
  });

  it('an id the gateway never gave is RESUME_WINDOW_EXCEEDED (REST: 410 with ErrorInfo)', async () => {
    const { path, body } = sendBody('rest-1.0', randomUUID());
    const resumed = await postSse(`${b.url}/agents/counter${path}`, body, {
      ...wireHeaders('rest-1.0'),
      'last-event-id': 'not-ours',
    });
    await resumed.rest();
    expect(resumed.status).toBe(410);
    expect(JSON.parse(resumed.raw().toString()).error.details[0].reason).toBe('RESUME_WINDOW_EXCEEDED');
  });

  it('counts what it did on a2a_stream_resumes_total (the other gateway replayed and refused above)', async () => {
    const text = await (await fetch(`${b.adminUrl}/metrics`)).text();
    const count = (agent: string, outcome: string) =>
      Number(
        new RegExp(`^a2a_stream_resumes_total\\{agent="${agent}",outcome="${outcome}"\\} (\\d+)`, 'm').exec(text)?.[1],
      );
    expect(count('counter', 'replayed')).toBe(WIRES.length + 1);
    expect(count('short', 'beyond_window')).toBe(1);
    expect(text).toMatch(/^a2a_resume_window_write_failures_total 0$/m);
  });
});
