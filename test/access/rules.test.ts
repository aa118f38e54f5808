/**
 * Per-operation access rules end to end (issue #13 item 3): `access.allow` admits team-a and ops
 * to the agent, `access.methods.CancelTask` narrows cancelling to ops. Over JSON-RPC and HTTP+JSON,
 * A2A 1.0 (SDK 1.3.0 agent and client) and 0.3 (SDK 0.3.14): olga (ops) cancels her task; alice
 * (team-a) may send and read but her cancel is refused with 403 PERMISSION_DENIED in her protocol
 * and never reaches the agent; mallory (guests) may not even send. Allowed calls go through the
 * SDK clients; refusals are read raw for their exact shape.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Task } from '@a2a-js/sdk';
import type { Task as TaskV03 } from 'a2a-sdk-v03';
import { startPeerV1 } from '../peers/peer-v1.js';
import { startPeerV03 } from '../peers/peer-v03.js';
import type { Peer } from '../peers/peer-common.js';
import { sendParamsV03, sendRequestV1, userMessageV03, userMessageV1, type TransportName } from '../peers/clients.js';
import { within, withDeadline } from '../peers/deadline.js';
import { asTask, stateName } from '../peers/inspect.js';
import type { RunningGateway } from '../../src/gateway/gateway.js';
import {
  agentCalls,
  call,
  recordExchanges,
  rpc,
  startAccessGateway,
  V1,
  wireMessageV03,
  wireMessageV1,
  type PrincipalName,
  type RawCall,
  type RawReply,
} from './support/harness.js';
import { clientV03As, clientV1As } from './support/auth-clients.js';
import { endpoints, restMessageV03, taskCall, type Binding, type Version } from './support/wire.js';
import type { ExchangeRecord } from '../../src/exchange/record.js';

const ACCESS = { allow: ['team-a', 'ops'], methods: { CancelTask: ['ops'] } };
const TRANSPORTS: TransportName[] = ['JSONRPC', 'HTTP+JSON'];

let v1Peer: Peer;
let v03Peer: Peer;
let gateway: RunningGateway;
let records: ExchangeRecord[];

beforeAll(async () => {
  [v1Peer, v03Peer] = await Promise.all([startPeerV1({ stepMs: 20 }), startPeerV03({ stepMs: 20 })]);
  const recorder = recordExchanges();
  records = recorder.records;
  gateway = await startAccessGateway(
    { v1: { url: v1Peer.url, access: ACCESS }, v03: { url: v03Peer.url, access: ACCESS } },
    {},
    [recorder.observer],
  );
});
afterAll(async () => {
  await gateway?.close();
  await Promise.all([v1Peer?.close(), v03Peer?.close()]);
});

const bindingOf = (transport: TransportName): Binding => (transport === 'JSONRPC' ? 'jsonrpc' : 'rest');

/** The exact 403 PERMISSION_DENIED of the gateway, in the caller's binding and version. */
function expectPermissionDenied(
  reply: RawReply,
  binding: Binding,
  version: Version,
  who: PrincipalName,
  operation: string,
  agent: string,
): void {
  expect(reply.status).toBe(403);
  const info = {
    '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
    reason: 'PERMISSION_DENIED',
    domain: 'a2a-gateway',
    metadata: { agent, operation },
  };
  const message = `"${who}" may not call ${operation} on agent "${agent}"`;
  if (binding === 'jsonrpc') {
    expect(reply.contentType).toBe('application/json');
    expect(reply.json).toEqual({ jsonrpc: '2.0', id: 7, error: { code: -32000, message, data: [info] } });
  } else {
    expect(reply.contentType).toBe(version === '1.0' ? 'application/a2a+json' : 'application/json');
    expect(reply.json).toEqual({ error: { code: 403, status: 'PERMISSION_DENIED', message, details: [info] } });
  }
}

/** What the gateway recorded for the last exchange of `who`. */
function lastRecordOf(who: PrincipalName): ExchangeRecord | undefined {
  return records.filter((r) => r.access?.principal === who).at(-1);
}

describe.each(TRANSPORTS)('A2A 1.0 per-operation rules over %s', (transport) => {
  const binding = bindingOf(transport);
  const urls = () => endpoints(gateway.url, 'v1');
  const client = (who: PrincipalName) => withDeadline(clientV1As(who, urls().base, transport), 5000, 'card');
  const parkedTask = async (who: PrincipalName): Promise<Task> => {
    const c = await client(who);
    const task = asTask(await c.sendMessage(sendRequestV1(userMessageV1('needs input')), within(5000)));
    expect(stateName(task.status?.state)).toBe('INPUT_REQUIRED');
    return task;
  };

  it('olga (ops) sends, reads and cancels her task; the agent got the cancel', async () => {
    const olga = await client('olga');
    const task = await parkedTask('olga');
    expect((await olga.getTask({ tenant: '', id: task.id }, within(3000))).id).toBe(task.id);
    const since = v1Peer.requests.length;
    const canceled = await olga.cancelTask({ tenant: '', id: task.id, metadata: undefined }, within(3000));
    expect(stateName(canceled.status?.state)).toBe('CANCELED');
    const heard = agentCalls(v1Peer, since);
    expect(heard).toHaveLength(1);
    if (binding === 'rest') expect(heard[0]!.path).toBe(`/a2a/rest/tasks/${task.id}:cancel`);
  });

  it('alice (team-a) sends and reads, but her CancelTask is 403 PERMISSION_DENIED and never reaches the agent', async () => {
    const alice = await client('alice');
    const task = await parkedTask('alice');
    expect((await alice.getTask({ tenant: '', id: task.id }, within(3000))).id).toBe(task.id);
    const since = v1Peer.requests.length;
    const cancel = taskCall(urls(), '1.0', binding, 'CancelTask', task.id);
    const reply = await call(cancel.url, 'alice', cancel.opts);
    expectPermissionDenied(reply, binding, '1.0', 'alice', 'CancelTask', 'v1');
    expect(lastRecordOf('alice')?.access).toEqual({ principal: 'alice', denied: 'forbidden' });
    // Her SDK client is refused too, and the task goes on unaffected.
    await expect(alice.cancelTask({ tenant: '', id: task.id, metadata: undefined }, within(3000))).rejects.toThrow(
      /may not call CancelTask/,
    );
    expect(agentCalls(v1Peer, since)).toEqual([]);
    const still = await alice.getTask({ tenant: '', id: task.id }, within(3000));
    expect(stateName(still.status?.state)).toBe('INPUT_REQUIRED');
  });

  it('alice passes with her key as X-API-Key just as with Bearer', async () => {
    const task = await parkedTask('alice');
    const get = taskCall(urls(), '1.0', binding, 'GetTask', task.id);
    const reply = await call(get.url, undefined, {
      ...get.opts,
      headers: { ...get.opts.headers, 'x-api-key': 'alice-key-0123456789abcdef' },
    });
    expect(reply.status).toBe(200);
    expect(reply.text).toContain(task.id);
  });

  it('mallory (guests) is refused SendMessage with 403; the agent hears nothing', async () => {
    const since = v1Peer.requests.length;
    const send: RawCall =
      binding === 'jsonrpc'
        ? { body: rpc('SendMessage', { message: wireMessageV1('hello?') }, 7), headers: V1 }
        : { body: { message: wireMessageV1('hello?') }, headers: V1 };
    const reply = await call(binding === 'jsonrpc' ? urls().jsonrpc : `${urls().rest}/message:send`, 'mallory', send);
    expectPermissionDenied(reply, binding, '1.0', 'mallory', 'SendMessage', 'v1');
    // The public card is still hers to read, so her SDK client starts — and is refused at the call.
    const mallory = await client('mallory');
    await expect(mallory.sendMessage(sendRequestV1(userMessageV1('hello?')), within(3000))).rejects.toThrow(
      /may not call SendMessage/,
    );
    expect(agentCalls(v1Peer, since)).toEqual([]);
  });

  it('mallory is refused GetTask on a task by rule (403), before ownership could say "not found"', async () => {
    const task = await parkedTask('olga');
    const get = taskCall(urls(), '1.0', binding, 'GetTask', task.id);
    expectPermissionDenied(await call(get.url, 'mallory', get.opts), binding, '1.0', 'mallory', 'GetTask', 'v1');
  });
});

describe.each(TRANSPORTS)('A2A 0.3 per-operation rules over %s', (transport) => {
  const binding = bindingOf(transport);
  const urls = () => endpoints(gateway.url, 'v03');
  const client = (who: PrincipalName) => withDeadline(clientV03As(who, urls().base, transport), 5000, 'card');
  const parkedTask = async (who: PrincipalName): Promise<TaskV03> => {
    const sent = await (await client(who)).sendMessage(sendParamsV03(userMessageV03('needs input')), within(5000));
    if (sent.kind !== 'task') throw new Error('expected a task');
    expect(sent.status.state).toBe('input-required');
    return sent;
  };

  it('olga (ops) sends, reads and cancels her task; the agent got the cancel', async () => {
    const olga = await client('olga');
    const task = await parkedTask('olga');
    expect((await olga.getTask({ id: task.id }, within(3000))).id).toBe(task.id);
    const since = v03Peer.requests.length;
    const canceled = await olga.cancelTask({ id: task.id }, within(3000));
    expect(canceled.status.state).toBe('canceled');
    const heard = agentCalls(v03Peer, since);
    expect(heard).toHaveLength(1);
    if (binding === 'rest') expect(heard[0]!.path).toBe(`/a2a/rest/v1/tasks/${task.id}:cancel`);
  });

  it('alice (team-a) sends and reads, but her tasks/cancel is 403 PERMISSION_DENIED and never reaches the agent', async () => {
    const alice = await client('alice');
    const task = await parkedTask('alice');
    expect((await alice.getTask({ id: task.id }, within(3000))).id).toBe(task.id);
    const since = v03Peer.requests.length;
    const cancel = taskCall(urls(), '0.3', binding, 'CancelTask', task.id);
    expectPermissionDenied(await call(cancel.url, 'alice', cancel.opts), binding, '0.3', 'alice', 'CancelTask', 'v03');
    await expect(alice.cancelTask({ id: task.id }, within(3000))).rejects.toThrow(/may not call CancelTask/);
    expect(agentCalls(v03Peer, since)).toEqual([]);
    expect((await alice.getTask({ id: task.id }, within(3000))).status.state).toBe('input-required');
  });

  it('mallory (guests) is refused message/send with 403; the agent hears nothing', async () => {
    const since = v03Peer.requests.length;
    const reply =
      binding === 'jsonrpc'
        ? await call(urls().jsonrpc, 'mallory', { body: rpc('message/send', { message: wireMessageV03('hello?') }, 7) })
        : await call(`${urls().rest}/v1/message:send`, 'mallory', { body: { message: restMessageV03('hello?') } });
    expectPermissionDenied(reply, binding, '0.3', 'mallory', 'SendMessage', 'v03');
    const mallory = await client('mallory');
    await expect(mallory.sendMessage(sendParamsV03(userMessageV03('hello?')), within(3000))).rejects.toThrow(
      /may not call SendMessage/,
    );
    expect(agentCalls(v03Peer, since)).toEqual([]);
  });
});

/**
 * The rule names an operation; the agent (Express) also routes case-insensitively, with a trailing
 * slash, and a REST route whatever the body looks like. alice must not get a cancel through by
 * any of these spellings (how the gateway refuses is its choice; the agent must not cancel).
 */
describe('the CancelTask rule holds for every spelling the agent accepts', () => {
  const urls = () => endpoints(gateway.url, 'v1');

  it.each<[string, (id: string) => { url: string; opts: RawCall }]>([
    [
      'POST …/tasks/{id}:cancel/ (trailing slash)',
      (id) => ({ url: `${urls().rest}/tasks/${id}:cancel/`, opts: { body: {}, headers: V1 } }),
    ],
    [
      'POST …/TASKS/{id}:cancel (upper case)',
      (id) => ({ url: `${urls().rest}/TASKS/${id}:cancel`, opts: { body: {}, headers: V1 } }),
    ],
    [
      'POST …/tasks/{id}:cancel with a body that looks like a JSON-RPC SendMessage',
      (id) => ({
        url: `${urls().rest}/tasks/${id}:cancel`,
        opts: { body: rpc('SendMessage', { message: wireMessageV1('hello?') }), headers: V1 },
      }),
    ],
  ])('A2A 1.0 %s', async (_name, request) => {
    const alice = await withDeadline(clientV1As('alice', urls().base, 'JSONRPC'), 5000, 'card');
    const task = asTask(await alice.sendMessage(sendRequestV1(userMessageV1('needs input')), within(5000)));
    const since = v1Peer.requests.length;
    const { url, opts } = request(task.id);
    const reply = await call(url, 'alice', opts);
    expect(agentCalls(v1Peer, since), `the agent answered alice with ${reply.status}`).toEqual([]);
    const still = await alice.getTask({ tenant: '', id: task.id }, within(3000));
    expect(stateName(still.status?.state)).toBe('INPUT_REQUIRED');
  });

  it('A2A 0.3 POST …/v1/tasks/{id}:cancel/ (trailing slash)', async () => {
    const v03 = endpoints(gateway.url, 'v03');
    const sent = await call(v03.jsonrpc, 'alice', {
      body: rpc('message/send', { message: wireMessageV03('needs input') }),
    });
    const id = (sent.json as { result: TaskV03 }).result.id;
    const since = v03Peer.requests.length;
    const reply = await call(`${v03.rest}/v1/tasks/${id}:cancel/`, 'alice', { body: {} });
    expect(agentCalls(v03Peer, since), `the agent answered alice with ${reply.status}`).toEqual([]);
  });
});
