/**
 * A resumed stream under task ownership (docs/security.md "Task ownership"): `Last-Event-ID`
 * names the task the stream follows, and a SendStreamingMessage sent again does not name it in
 * its body, so step 4b checks that task is the caller's, as for SubscribeToTask. Another caller
 * holding the id gets the protocol's TaskNotFound and no event; the owner resumes as usual.
 * Runs the built CLI (`npm test` builds first).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReadyGateway, type GatewayProcess } from '../state/support/replicas.js';
import { EVENTS, startCountingAgent, type CountingAgent } from './support/counting-agent.js';
import { postSse, readThenCut } from './support/sse-client.js';
import { sendBody, wireHeaders } from './support/wire.js';

const ALICE = 'alice-key-0123456789';
const BOB = 'bob-key-0123456789';
let agent: CountingAgent;
let gateway: GatewayProcess;

beforeAll(async () => {
  agent = await startCountingAgent(20);
  gateway = await startReadyGateway(`auth:
  apiKeys:
    alice: { key: "${ALICE}", groups: [team] }
    bob: { key: "${BOB}", groups: [team] }
agents:
  counter:
    url: "${agent.url}"
    access: { allow: [team] }
    resume: { enabled: true }
`);
}, 30_000);

afterAll(async () => {
  await gateway?.stop();
  await agent?.close();
});

describe('stream resume under task ownership', () => {
  it("answers another caller's resume TaskNotFound, and resumes the owner's", async () => {
    const { path, body } = sendBody('jsonrpc-1.0', randomUUID());
    const url = `${gateway.url}/agents/counter${path}`;
    const as = (key: string, extra: Record<string, string> = {}) => ({
      ...wireHeaders('jsonrpc-1.0'),
      'x-api-key': key,
      ...extra,
    });
    const before = await readThenCut(url, body, as(ALICE));
    const lastEventId = before.at(-1)!.id!;

    const stolen = await fetch(url, { method: 'POST', body, headers: as(BOB, { 'last-event-id': lastEventId }) });
    const refusal = (await stolen.json()) as { error?: { code: number; message: string } };
    expect(refusal.error?.code).toBe(-32001); // TaskNotFound, as for a task that does not exist
    expect(stolen.headers.get('content-type')).not.toMatch(/event-stream/);

    const resumed = await postSse(url, body, as(ALICE, { 'last-event-id': lastEventId }));
    expect([...before, ...(await resumed.rest())]).toHaveLength(EVENTS);
  });
});
