/**
 * Stream resume on a translated stream (docs/translation.md): 1.0 clients of an agent declared
 * `translate: { agentVersion: "0.3" }` (the SDK 1.3.0 counting agent with its 0.3 layer answers
 * the translated 0.3 calls). The window keeps the events as the client got them (1.0, with ids);
 * a resume whose window is spent goes on with a SubscribeToTask in 0.3, its events translated.
 * Runs the built CLI (`npm test` builds first).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventSourceMessage } from 'eventsource-parser';
import { startReadyGateway, type GatewayProcess } from '../state/support/replicas.js';
import { startCountingAgent, type CountingAgent } from '../resume/support/counting-agent.js';
import { postSse, readThenCut } from '../resume/support/sse-client.js';
import { sendBody, wireHeaders, type Wire } from '../resume/support/wire.js';

let agent: CountingAgent;
let gateway: GatewayProcess;

beforeAll(async () => {
  agent = await startCountingAgent(30);
  gateway = await startReadyGateway(`agents:
  counter:
    url: "${agent.url}"
    translate: { agentVersion: "0.3" }
    resume: { enabled: true, grace: 0s }
`);
}, 30_000);

afterAll(async () => {
  await gateway?.stop();
  await agent?.close();
});

/** The 1.0 StreamResponse of an event (JSON-RPC: its result). */
const payloadOf = (wire: Wire, e: EventSourceMessage) => {
  const doc = JSON.parse(e.data) as Record<string, unknown>;
  return (wire.startsWith('jsonrpc') ? doc['result'] : doc) as Record<string, Record<string, unknown>>;
};

describe('a translated stream, resumed', () => {
  for (const wire of ['jsonrpc-1.0', 'rest-1.0'] as const satisfies readonly Wire[]) {
    it(`${wire}: the window and then a 0.3 SubscribeToTask, every event in 1.0, the message sent once`, async () => {
      const marker = randomUUID();
      const { path, body } = sendBody(wire, marker);
      const url = `${gateway.url}/agents/counter${path}`;
      const before = await readThenCut(url, body, wireHeaders(wire));
      const resumed = await postSse(url, body, { ...wireHeaders(wire), 'last-event-id': before[2]!.id! });
      expect(resumed.status).toBe(200);
      const after = await resumed.rest();

      const events = [...before, ...after].map((e) => payloadOf(wire, e));
      // 1.0 shapes only: a member per payload kind, no 0.3 `kind` tag.
      for (const ev of events) {
        expect(
          Object.keys(ev).filter((k) => ['task', 'message', 'statusUpdate', 'artifactUpdate'].includes(k)),
        ).toHaveLength(1);
        expect(ev).not.toHaveProperty('kind');
        // 0.3's `final` (both 0.3 wires) is not 1.0's.
        if (ev['statusUpdate']) expect(ev['statusUpdate']).not.toHaveProperty('final');
      }
      expect(events.at(-1)!['statusUpdate']!['status']).toMatchObject({ state: 'TASK_STATE_COMPLETED' });
      // The agent got the message once, in 0.3, and the continuation as a 0.3 SubscribeToTask.
      const sends = agent.answers.filter((r) => r.body.includes(marker));
      expect(sends).toHaveLength(1);
      expect(sends[0]!.body.includes('"kind":"message"') || sends[0]!.path.includes('/v1/')).toBe(true);
      const continued = agent.answers.at(-1)!;
      expect(`${continued.path} ${continued.body}`).toMatch(/tasks\/resubscribe|\/v1\/tasks\/[^/]+:subscribe/);
    });
  }
});
