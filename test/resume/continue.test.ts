/**
 * A resumed stream that nobody reads any more (`grace: 0s`: the gateway cancels the agent's
 * stream the moment its client leaves) goes on with a SubscribeToTask to the agent: the client
 * gets the window's events after its Last-Event-ID, then the agent's Task snapshot and every later
 * event as the agent sent them on that SubscribeToTask, ids of a new stream; the message is never
 * sent again (docs/fleet.md "Stream resume").
 * Runs the built CLI (`npm test` builds first).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventSourceMessage } from 'eventsource-parser';
import { startReadyGateway, type GatewayProcess } from '../state/support/replicas.js';
import { startCountingAgent, type CountingAgent } from './support/counting-agent.js';
import { eventData, postSse, readThenCut } from './support/sse-client.js';
import { sendBody, wireHeaders, type Wire } from './support/wire.js';

let agent: CountingAgent;
let gateway: GatewayProcess;

beforeAll(async () => {
  agent = await startCountingAgent(30);
  gateway = await startReadyGateway(`agents:
  counter:
    url: "${agent.url}"
    resume: { enabled: true, grace: 0s }
`);
}, 30_000);

afterAll(async () => {
  await gateway?.stop();
  await agent?.close();
});

const streamOf = (e: EventSourceMessage) => e.id!.split('.')[1];
const seqOf = (e: EventSourceMessage) => Number(e.id!.split('.')[2]);

describe('stream resume continued with SubscribeToTask when nobody reads the agent any more', () => {
  for (const wire of ['jsonrpc-1.0', 'rest-0.3'] as const satisfies readonly Wire[]) {
    it(`${wire}: the window, then the agent's subscription, every event once`, async () => {
      const marker = randomUUID();
      const { path, body } = sendBody(wire, marker);
      const url = `${gateway.url}/agents/counter${path}`;
      const before = await readThenCut(url, body, wireHeaders(wire));
      const resumed = await postSse(url, body, { ...wireHeaders(wire), 'last-event-id': before[2]!.id! });
      expect(resumed.status).toBe(200);
      const after = await resumed.rest();

      const sent = eventData(agent.answers.find((r) => r.body.includes(marker))!.bytes());
      const fromWindow = after.filter((e) => streamOf(e) === streamOf(before[0]!));
      const continued = after.slice(fromWindow.length);
      // The window: what the first stream relayed before it was canceled (the agent wrote on into a
      // closed answer: its record has more), after the client's last event.
      const relayed = [...before, ...fromWindow].map((e) => e.data);
      expect(relayed).toEqual(sent.slice(0, relayed.length));
      expect(fromWindow.map(seqOf)).toEqual(fromWindow.map((_, i) => i + 4));
      // Then the agent's SubscribeToTask answer, byte for byte, numbered as a stream of its own.
      const subscribe = agent.answers.filter((r) => /SubscribeToTask|resubscribe|:subscribe/.test(r.path + r.body));
      const subscribed = eventData(subscribe.at(-1)!.bytes());
      expect(continued.map((e) => e.data)).toEqual(subscribed);
      expect(continued.map(seqOf)).toEqual(continued.map((_, i) => i + 1));
      expect(new Set(continued.map(streamOf)).size).toBe(1);
      expect(continued.at(-1)!.data).toMatch(/COMPLETED|completed/);
      expect(agent.answers.filter((r) => r.body.includes(marker))).toHaveLength(1);
    });
  }
});
