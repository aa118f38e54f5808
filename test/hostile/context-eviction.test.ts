/**
 * Issue 29 item 6: a context that fell out of the task store must not become anyone's. Under task
 * ownership a message may name only a context the gateway saw come back to that caller
 * (src/access/ownership.ts `refusedContext`); one the store has forgotten (`tasks.maxTracked: 1`
 * here, so alice's next conversation evicts her first) is refused exactly as another caller's
 * is — same status, content type and body — and the agent hears nothing. With the memory store
 * and with a real redis-server (test/support/redis-server.ts). `access.clientContextIds: true`
 * brings back client-chosen context ids, and with them the old trade-off.
 * The agent is the official SDK 1.3.0 peer (test/peers/peer-v1.ts); calls are raw HTTP, so the
 * refusals can be compared byte for byte.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { startPeerV1 } from '../peers/peer-v1.js';
import type { Peer } from '../peers/peer-common.js';
import { pollUntil } from '../peers/deadline.js';
import { startRedis, type TestRedis } from '../support/redis-server.js';
import { parseConfig } from '../../src/config/load.js';
import type { RunningGateway } from '../../src/gateway/gateway.js';
import {
  V1,
  agentCalls,
  PRINCIPALS,
  call,
  comparable,
  rpc,
  startAccessGateway,
  unknownTaskId,
  wireMessageV03,
  wireMessageV1,
  type PrincipalName,
  type RawReply,
} from '../access/support/harness.js';

const REFUSAL = 'this contextId is not one of your conversations; omit contextId to let the agent start a new one';
const agentAt = { url: '', access: { allow: ['team-a'] } };

let peer: Peer;
let redis: TestRedis;
let redisClient: Redis;
let memory: RunningGateway;
let shared: RunningGateway;
let open: RunningGateway;

const start = (extra: Record<string, unknown>, access: Record<string, unknown> = {}) =>
  startAccessGateway(
    { reviewer: { ...agentAt, url: peer.url, access: { ...agentAt.access, ...access } } },
    { tasks: { maxTracked: 1 }, ...extra },
  );

beforeAll(async () => {
  [peer, redis] = await Promise.all([startPeerV1(), startRedis()]);
  redisClient = new Redis(redis.url, { lazyConnect: true });
  await redisClient.connect();
  [memory, shared] = await Promise.all([start({}), start({ state: { store: 'redis', redis: { url: redis.url } } })]);
  await pollUntil(
    async () => (await fetch(`${shared.adminUrl}/metrics`)).text(),
    (text) => /a2a_state_store_up 1/.test(text),
    10_000,
    'redis store connected',
  );
});
afterAll(async () => {
  await Promise.all([memory?.close(), shared?.close(), open?.close()]);
  redisClient?.disconnect();
  await Promise.all([peer?.close(), redis?.stop()]);
});

const jsonrpc = (g: RunningGateway) => `${g.url}/agents/reviewer/a2a/jsonrpc`;

/** A 1.0 SendMessage as `who`, optionally in `contextId` and on `taskId`. */
function send(g: RunningGateway, who: PrincipalName, text: string, contextId?: string, taskId?: string) {
  const message = { ...wireMessageV1(text, taskId), ...(contextId ? { contextId } : {}) };
  return call(jsonrpc(g), who, { body: rpc('SendMessage', { message }, 7), headers: V1 });
}

/** The context (and task, if any) of an answered SendMessage. */
function answered(reply: RawReply): { contextId: string; taskId?: string } {
  expect(reply.status, reply.text).toBe(200);
  const result = (
    reply.json as { result: { message?: { contextId: string }; task?: { id: string; contextId: string } } }
  ).result;
  if (result.task) return { contextId: result.task.contextId, taskId: result.task.id };
  return { contextId: result.message!.contextId };
}

/** The refusal every context that is not the caller's gets (403 in JSON-RPC, PERMISSION_DENIED). */
function expectRefused(reply: RawReply): void {
  expect(reply.status).toBe(403);
  expect(reply.json).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32000, message: REFUSAL } });
  expect(reply.text).toContain('PERMISSION_DENIED');
}

/** alice's first conversation, then a second that pushes it out of the one-entry store. */
async function evictedContext(g: RunningGateway): Promise<{ evicted: string; live: string }> {
  const evicted = answered(await send(g, 'alice', 'what is first?')).contextId;
  const live = answered(await send(g, 'alice', 'what is second?')).contextId;
  expect(live).not.toBe(evicted);
  if (g === shared) {
    // The second claim reaches Redis through the write queue: wait until it has evicted the first there too.
    const key = `a2a-gateway:ctx:reviewer:${evicted}`;
    await pollUntil(
      () => redisClient.exists(key),
      (n) => n === 0,
      10_000,
      'first context evicted in Redis',
    );
  }
  return { evicted, live };
}

describe.each([
  ['memory store', () => memory],
  ['redis store', () => shared],
])('a context the task store forgot (%s)', (_store, gateway) => {
  it("is refused to bob exactly as alice's live context is; the agent hears nothing", async () => {
    const g = gateway();
    const { evicted, live } = await evictedContext(g);
    const since = peer.requests.length;
    const intoForgotten = await send(g, 'bob', 'and what did alice say?', evicted);
    const intoLive = await send(g, 'bob', 'and what did alice say?', live);
    expect(agentCalls(peer, since)).toEqual([]);
    expectRefused(intoForgotten);
    expect(comparable(intoForgotten, evicted)).toEqual(comparable(intoLive, live));
    // Nor did the refusal give the forgotten context to bob: it stays closed to everyone.
    expectRefused(await send(g, 'bob', 'and now?', evicted));
  });

  it('a context forgotten by the store is closed to its first owner too; her live one is open', async () => {
    const g = gateway();
    const { evicted, live } = await evictedContext(g);
    expect(answered(await send(g, 'alice', 'go on?', live)).contextId).toBe(live);
    expectRefused(await send(g, 'alice', 'go on?', evicted));
  });
});

describe('client-chosen context ids (memory store)', () => {
  it('a message without contextId starts a conversation, and its follow-up is admitted', async () => {
    const started = answered(await send(memory, 'bob', 'what is new?')).contextId;
    expect(answered(await send(memory, 'bob', 'and then?', started)).contextId).toBe(started);
  });

  it("a follow-up on the caller's own task with its contextId is admitted", async () => {
    const task = answered(await send(memory, 'alice', 'needs input'));
    expect(task.taskId).toBeDefined();
    const again = answered(await send(memory, 'alice', 'here are the details', task.contextId, task.taskId));
    expect(again).toEqual(task);
  });

  it('a never-seen context id is refused by default; the agent hears nothing', async () => {
    const since = peer.requests.length;
    expectRefused(await send(memory, 'bob', 'what is mine?', `bob-chose-${unknownTaskId()}`));
    expect(agentCalls(peer, since)).toEqual([]);
  });
});

describe('with access.clientContextIds (memory store)', () => {
  beforeAll(async () => {
    open = await start({}, { clientContextIds: true });
  });

  it('with access.clientContextIds a never-seen context id is admitted and becomes the caller’s', async () => {
    const chosen = `bob-chose-${unknownTaskId()}`;
    expect(answered(await send(open, 'bob', 'what is mine?', chosen)).contextId).toBe(chosen);
    expectRefused(await send(open, 'alice', 'what is his?', chosen));
    expect(answered(await send(open, 'bob', 'and then?', chosen)).contextId).toBe(chosen);
  });

  it('with access.clientContextIds a forgotten context goes to whoever names it first (the documented trade-off)', async () => {
    const { evicted } = await evictedContext(open);
    expect(answered(await send(open, 'bob', 'what did alice say?', evicted)).contextId).toBe(evicted);
    expectRefused(await send(open, 'alice', 'go on?', evicted));
  });

  /** The config a reload hands the `open` gateway: as started, the switch as given. */
  const configWith = (clientContextIds: boolean) =>
    parseConfig(
      JSON.stringify({
        listen: { host: '127.0.0.1', port: 0 },
        admin: { listen: { host: '127.0.0.1', port: 0 } },
        shutdown: { grace: '2s' },
        cards: { retry: '200ms' },
        auth: { apiKeys: PRINCIPALS },
        tasks: { maxTracked: 1 },
        agents: { reviewer: { url: peer.url, access: { allow: ['team-a'], clientContextIds } } },
      }),
      'test-config',
      {},
    );

  it('follows a reload: off, a never-seen context id is refused; on again, admitted', async () => {
    expect(open.reload(configWith(false))).toMatchObject({ ok: true, needsRestart: [] });
    expectRefused(await send(open, 'bob', 'what is mine?', `bob-chose-${unknownTaskId()}`));
    expect(open.reload(configWith(true))).toMatchObject({ ok: true, needsRestart: [] });
    const chosen = `bob-chose-${unknownTaskId()}`;
    expect(answered(await send(open, 'bob', 'what is mine?', chosen)).contextId).toBe(chosen);
  });
});

/**
 * A 0.3 caller's message/send translated for a 1.0 agent (src/translate): the gate reads its
 * context id as it reads a 1.0 one, so the same rule holds across versions.
 */
describe('a 0.3 message/send translated for the 1.0 agent', () => {
  let translated: RunningGateway;
  beforeAll(async () => {
    translated = await startAccessGateway({
      reviewer: { url: peer.url, access: { allow: ['team-a'] }, translate: { agentVersion: '1.0' } },
    });
  });
  afterAll(() => translated?.close());

  const send03 = (who: PrincipalName, text: string, contextId?: string) =>
    call(jsonrpc(translated), who, {
      body: rpc('message/send', { message: { ...wireMessageV03(text), ...(contextId ? { contextId } : {}) } }, 7),
    });

  it('admits alice in her own context, refuses bob there and in a context id he chose; the agent hears nothing', async () => {
    const first = await send03('alice', 'what is first?');
    expect(first.status, first.text).toBe(200);
    const context = (first.json as { result: { contextId: string } }).result.contextId;
    const again = await send03('alice', 'go on?', context);
    expect(again.status, again.text).toBe(200);
    expect((again.json as { result: { contextId: string } }).result.contextId).toBe(context);
    const since = peer.requests.length;
    const intoHers = await send03('bob', 'what did alice say?', context);
    const chosen = `bob-chose-${unknownTaskId()}`;
    const intoChosen = await send03('bob', 'what is mine?', chosen);
    expect(agentCalls(peer, since)).toEqual([]);
    expectRefused(intoHers);
    expect(comparable(intoChosen, chosen)).toEqual(comparable(intoHers, context));
  });
});
