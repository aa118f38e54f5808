/**
 * Stream resume on one gateway process with the in-memory store (`state.store: memory`), and
 * an agent without `resume`, whose streams must reach the client byte for byte as the agent
 * wrote them: no `id:` lines, nothing held (docs/fleet.md "Stream resume").
 * Runs the built CLI (`npm test` builds first).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventSourceMessage } from 'eventsource-parser';
import { pollUntil } from '../peers/deadline.js';
import { startReadyGateway, type GatewayProcess } from '../state/support/replicas.js';
import { EVENTS, startCountingAgent, type CountingAgent } from './support/counting-agent.js';
import { eventData, postSse } from './support/sse-client.js';
import { sendBody, wireHeaders } from './support/wire.js';

let agent: CountingAgent;
let gateway: GatewayProcess;

beforeAll(async () => {
  agent = await startCountingAgent(20);
  gateway = await startReadyGateway(`agents:
  counter:
    url: "${agent.url}"
    resume: { enabled: true }
  plain:
    url: "${agent.url}"
`);
}, 30_000);

afterAll(async () => {
  await gateway?.stop();
  await agent?.close();
});

function agentAnswer(marker: string) {
  return pollUntil(
    () => Promise.resolve(agent.answers.find((r) => r.body.includes(marker))),
    (r) => r !== undefined && eventData(r.bytes()).length === EVENTS,
    15_000,
    'the agent to finish its stream',
  ).then((r) => r!);
}

describe('stream resume, in-memory store, one gateway', () => {
  it('resumes a cut stream through the same gateway: every event once, in order, as the agent sent it', async () => {
    const marker = randomUUID();
    const { path, body } = sendBody('jsonrpc-1.0', marker);
    const url = `${gateway.url}/agents/counter${path}`;
    const first = await postSse(url, body, wireHeaders('jsonrpc-1.0'));
    const before: EventSourceMessage[] = [];
    const cutAt = 1 + Math.floor(Math.random() * (EVENTS - 2));
    while (before.length < cutAt) before.push((await first.next())!);
    first.cut();
    const resumed = await postSse(url, body, { ...wireHeaders('jsonrpc-1.0'), 'last-event-id': before.at(-1)!.id! });
    const all = [...before, ...(await resumed.rest())];
    expect(all.map((e) => e.data)).toEqual(eventData((await agentAnswer(marker)).bytes()));
    expect(all.map((e) => Number(e.id!.split('.')[2]))).toEqual(all.map((_, i) => i + 1));
    expect(agent.answers.filter((r) => r.body.includes(marker))).toHaveLength(1);
  });

  it('leaves the bytes of an agent without resume unchanged: no id lines', async () => {
    const marker = randomUUID();
    const { path, body } = sendBody('rest-1.0', marker);
    const answer = await postSse(`${gateway.url}/agents/plain${path}`, body, wireHeaders('rest-1.0'));
    const events = await answer.rest();
    expect(events).toHaveLength(EVENTS);
    expect(answer.raw().equals((await agentAnswer(marker)).bytes())).toBe(true);
    expect(answer.raw().toString()).not.toMatch(/^id:/m);
  });
});
