/**
 * Idempotent sends end to end (docs/fleet.md "Idempotent sends"): a real SDK agent that counts
 * the sends it runs, the in-process gateway on loopback, raw JSON-RPC and REST clients (the
 * tests read headers and ids) and the SDK's own client. In-memory store; the Redis store with two
 * gateway processes is replicas.test.ts.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientV1, sendRequestV1, userMessageV1 } from '../peers/clients.js';
import { pollUntil, within, withDeadline } from '../peers/deadline.js';
import { asTask } from '../peers/inspect.js';
import { startTestGateway } from '../support/gateway.js';
import type { RunningGateway } from '../../src/gateway/gateway.js';
import type { Exchange } from '../../src/exchange/exchange.js';
import type { ExchangeRecord } from '../../src/exchange/record.js';
import { startCountingAgent, type CountingAgent } from './support/counting-agent.js';
import { sendJsonRpc, sendRest, taskOf } from './support/rpc.js';

const IDEM = { enabled: true };
const ALICE = 'alice-key-0123456789';
const BOB = 'bob-key-0123456789ab';
let agent: CountingAgent;
let gateway: RunningGateway;
/** With API keys: principals. */
let keyed: RunningGateway;
const records: ExchangeRecord[] = [];

beforeAll(async () => {
  agent = await startCountingAgent();
  const url = agent.url;
  gateway = await startTestGateway(
    {
      idem: { url, idempotency: IDEM },
      rescued: { url, idempotency: IDEM, timeoutRescue: { enabled: true, clientTimeout: '3s', margin: '1s' } },
      impatient: { url, idempotency: { enabled: true, wait: '100ms' } },
      plain: { url },
    },
    {},
    [{ onFinish: (ex: Exchange) => void records.push(ex.record) }],
  );
  keyed = await startTestGateway(
    { keyed: { url, idempotency: IDEM } },
    { auth: { apiKeys: { alice: { key: ALICE }, bob: { key: BOB } } } },
  );
});
afterAll(async () => {
  await keyed?.close();
  await gateway?.close();
  await agent?.close();
});

const base = (name: string) => `${gateway.url}/agents/${name}`;
const sendsOf = (messageId: string) => agent.sends.get(messageId) ?? 0;
const recordsOf = (messageId: string) => records.filter((r) => r.a2a?.messageId === messageId);
/** Resolves once the agent has run the send (the first is in flight). */
const reachedAgent = (messageId: string) =>
  pollUntil(
    async () => sendsOf(messageId),
    (n) => n > 0,
    5000,
    'the send at the agent',
  );

describe('a retried blocking send', () => {
  it.each(['jsonrpc', 'rest'] as const)(
    'after the first completed (%s): the same task, one send at the agent',
    async (binding) => {
      const send = binding === 'jsonrpc' ? sendJsonRpc : sendRest;
      const messageId = randomUUID();
      const first = await send(base('idem'), 'do it', { messageId, id: 7 });
      const again = await send(base('idem'), 'do it', { messageId, id: 8 });
      expect(first.status).toBe(200);
      expect(again.status).toBe(200);
      expect(taskOf(again).id).toBe(taskOf(first).id);
      expect(taskOf(again).status.state).toBe('TASK_STATE_COMPLETED');
      expect(first.headers.get('a2a-gateway-idempotent')).toBeNull();
      expect(again.headers.get('a2a-gateway-idempotent')).toBe('replayed');
      if (binding === 'jsonrpc') expect(again.body['id']).toBe(8);
      expect(sendsOf(messageId)).toBe(1);
      expect(recordsOf(messageId).map((r) => r.idempotency?.outcome)).toEqual(['first', 'replayed']);
    },
  );

  it('with the SDK client: the retry returns the same task', async () => {
    const client = await withDeadline(clientV1(`${base('idem')}/`, { transport: 'JSONRPC' }), 5000, 'card');
    const request = sendRequestV1(userMessageV1('sdk retry'));
    const first = asTask(await client.sendMessage(request, within(5000)));
    const again = asTask(await client.sendMessage(request, within(5000)));
    expect(again.id).toBe(first.id);
    expect(sendsOf(request.message!.messageId)).toBe(1);
  });

  it('while the first is in flight: the duplicate waits and gets the same task', async () => {
    const messageId = randomUUID();
    const first = sendJsonRpc(base('idem'), 'wait:1000 long', { messageId, id: 1 });
    await reachedAgent(messageId);
    const again = await sendJsonRpc(base('idem'), 'wait:1000 long', { messageId, id: 2 });
    const firstAnswer = await first;
    expect(taskOf(again).id).toBe(taskOf(firstAnswer).id);
    expect(taskOf(again).status.state).toBe('TASK_STATE_COMPLETED');
    expect(again.body['id']).toBe(2);
    expect(sendsOf(messageId)).toBe(1);
    expect(
      recordsOf(messageId)
        .map((r) => r.idempotency?.outcome)
        .sort(),
    ).toEqual(['first', 'waited']);
  });

  // The duplicate's wait (100 ms) ends 1.4 s before the first's task (1.5 s).
  it('a duplicate still waiting when its wait ends is refused with 409 in its protocol', async () => {
    const messageId = randomUUID();
    const first = sendJsonRpc(base('impatient'), 'wait:1500 long', { messageId, id: 1 });
    await reachedAgent(messageId);
    const again = await sendJsonRpc(base('impatient'), 'wait:1500 long', { messageId, id: 2 });
    expect(again.status).toBe(409);
    expect(again.body['id']).toBe(2);
    expect(JSON.stringify(again.body['error'])).toContain('IDEMPOTENCY_IN_PROGRESS');
    expect(taskOf(await first).status.state).toBe('TASK_STATE_COMPLETED');
    expect(sendsOf(messageId)).toBe(1);
  });

  it('a non-blocking duplicate of a running task is answered at once with the task as it is', async () => {
    const messageId = randomUUID();
    const first = sendJsonRpc(base('idem'), 'wait:1500 long', { messageId, returnImmediately: true });
    const firstTask = taskOf(await first);
    const again = await sendJsonRpc(base('idem'), 'wait:1500 long', { messageId, returnImmediately: true });
    expect(taskOf(again).id).toBe(firstTask.id);
    expect(taskOf(again).status.state).toBe('TASK_STATE_WORKING');
    expect(sendsOf(messageId)).toBe(1);
  });
});

describe('with the timeout rescue', () => {
  // The rescue answers the first at 2 s (3 s deadline − 1 s margin), the task completes at 3 s,
  // the blocking retry's own answer is due at 4 s: each race is won by 1 s, as in test/rescue/.
  it('a client answered at its deadline retries, joins the same task and waits for it to settle', async () => {
    const messageId = randomUUID();
    const first = await sendJsonRpc(base('rescued'), 'wait:3000 long', { messageId, id: 1 });
    expect(first.headers.get('a2a-gateway-rescue')).toBe('deadline');
    expect(taskOf(first).status.state).toBe('TASK_STATE_WORKING');
    const again = await sendJsonRpc(base('rescued'), 'wait:3000 long', { messageId, id: 2 });
    expect(taskOf(again).id).toBe(taskOf(first).id);
    expect(taskOf(again).status.state).toBe('TASK_STATE_COMPLETED');
    expect(again.headers.get('a2a-gateway-rescue')).toBe('settled');
    expect(again.headers.get('a2a-gateway-idempotent')).toBe('replayed');
    expect(sendsOf(messageId)).toBe(1);
  });

  it('a client that gives up once the task is named retries and joins it', async () => {
    const messageId = randomUUID();
    const gaveUp = new AbortController();
    const first = sendJsonRpc(base('rescued'), 'wait:1000 long', { messageId, signal: gaveUp.signal });
    // The rescue's returnImmediately reply names the task; the tracker hears it at that moment.
    await reachedAgent(messageId);
    const taskId = agent.tasks.at(-1)!;
    // The rescue tells the tracker in the same turn as it names the task (src/rescue/rescue.ts).
    const story = () => gateway.tracker.store.get('rescued', taskId);
    await pollUntil(story, (seen) => seen !== undefined, 5000, 'the rescue saw the task');
    gaveUp.abort();
    await expect(first).rejects.toThrow();
    await pollUntil(
      async () => recordsOf(messageId).length,
      (n) => n === 1,
      5000,
      'first finished',
    );
    expect(recordsOf(messageId)[0]!.outcome).toBe('client-gone');
    const again = await sendJsonRpc(base('rescued'), 'wait:1000 long', { messageId, id: 2 });
    expect(taskOf(again).id).toBe(taskId);
    expect(sendsOf(messageId)).toBe(1);
  });
});

describe('scope and keys', () => {
  const as = (key: string, more: Record<string, string> = {}) => ({ 'x-api-key': key, ...more });

  it('another principal with the same messageId reaches the agent; each gets its own task', async () => {
    const messageId = randomUUID();
    const at = `${keyed.url}/agents/keyed`;
    const alice = await sendJsonRpc(at, 'mine', { messageId, headers: as(ALICE) });
    const bob = await sendJsonRpc(at, 'mine', { messageId, headers: as(BOB) });
    const aliceAgain = await sendJsonRpc(at, 'mine', { messageId, headers: as(ALICE) });
    expect(taskOf(bob).id).not.toBe(taskOf(alice).id);
    expect(taskOf(aliceAgain).id).toBe(taskOf(alice).id);
    expect(sendsOf(messageId)).toBe(2);
  });

  it('an Idempotency-Key is honoured; reused with another message it is refused (422)', async () => {
    const key = { 'idempotency-key': randomUUID() };
    const messageId = randomUUID();
    const first = await sendJsonRpc(base('idem'), 'keyed', { messageId, headers: key });
    const again = await sendJsonRpc(base('idem'), 'keyed', { messageId, headers: key, id: 3 });
    expect(taskOf(again).id).toBe(taskOf(first).id);
    // The messageId alone is another key: the header's namespace is its own.
    const noHeader = await sendJsonRpc(base('idem'), 'keyed', { messageId });
    expect(taskOf(noHeader).id).not.toBe(taskOf(first).id);
    expect(sendsOf(messageId)).toBe(2);
    const other = await sendRest(base('idem'), 'keyed', { messageId: randomUUID(), headers: key });
    expect(other.status).toBe(422);
    expect(JSON.stringify(other.body)).toContain('IDEMPOTENCY_KEY_REUSED');
    const rpcOther = await sendJsonRpc(base('idem'), 'another', { headers: key, id: 'x9' });
    expect(rpcOther.body['id']).toBe('x9');
    expect(JSON.stringify(rpcOther.body['error'])).toContain('IDEMPOTENCY_KEY_REUSED');
  });

  it('an Idempotency-Key longer than maxKeyLength is refused in the caller protocol', async () => {
    const answer = await sendJsonRpc(base('idem'), 'long key', {
      headers: { 'idempotency-key': 'k'.repeat(257) },
      id: 5,
    });
    expect(answer.body['id']).toBe(5);
    expect(JSON.stringify(answer.body['error'])).toContain('REQUEST_INVALID');
  });
});

describe('a Message outcome', () => {
  it('is replayed in the duplicate JSON-RPC id, the agent asked once', async () => {
    const messageId = randomUUID();
    const first = await sendJsonRpc(base('idem'), 'what is it?', { messageId, id: 41 });
    const again = await sendJsonRpc(base('idem'), 'what is it?', { messageId, id: 42 });
    expect(first.body['id']).toBe(41);
    expect(again.body['id']).toBe(42);
    expect(again.body['result']).toEqual(first.body['result']);
    expect(again.headers.get('a2a-gateway-idempotent')).toBe('replayed');
    expect(sendsOf(messageId)).toBe(1);
  });
});

describe('off', () => {
  it('the same messageId twice reaches the agent twice, answers unchanged', async () => {
    const messageId = randomUUID();
    const first = await sendJsonRpc(base('plain'), 'twice', { messageId });
    const again = await sendJsonRpc(base('plain'), 'twice', { messageId });
    expect(taskOf(again).id).not.toBe(taskOf(first).id);
    expect(again.headers.get('a2a-gateway-idempotent')).toBeNull();
    expect(sendsOf(messageId)).toBe(2);
    expect(recordsOf(messageId).every((r) => r.idempotency === undefined)).toBe(true);
  });
});

describe('metrics', () => {
  it('counts idempotent sends by outcome', async () => {
    const text = await (await fetch(gateway.metricsUrl!)).text();
    expect(text).toMatch(/a2a_idempotent_sends_total\{agent="idem",outcome="replayed"\} [1-9]/);
    expect(text).toMatch(/a2a_idempotent_sends_total\{agent="idem",outcome="refused"\} [1-9]/);
  });
});
