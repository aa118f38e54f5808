/**
 * Task ownership end to end (issue #13 item 4): real SDK agents (1.3.0 = A2A 1.0, 0.3.14 = A2A 0.3)
 * behind the gateway, driven by the SDKs' own clients and by raw HTTP. alice creates tasks; bob —
 * in the same group, so every access rule admits him — must find each of them exactly as absent
 * as a task id nobody ever saw: same status, content type and body (the id masked), the SDK
 * raising its TaskNotFound error type, and the agent never hearing of the call. alice keeps every
 * operation on her tasks; ListTasks (1.0) shows each caller only their own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskState, type StreamResponse, type Task } from '@a2a-js/sdk';
import { TaskNotFoundError } from '@a2a-js/sdk/errors';
import type { Client } from '@a2a-js/sdk/client';
import { TaskNotFoundError as TaskNotFoundErrorV03, type Client as ClientV03 } from 'a2a-sdk-v03/client';
import type {
  GetTaskPushNotificationConfigParams,
  Task as TaskV03,
  TaskStatusUpdateEvent as StatusEventV03,
} from 'a2a-sdk-v03';
import { startPeerV1 } from '../peers/peer-v1.js';
import { startPeerV03 } from '../peers/peer-v03.js';
import type { Peer } from '../peers/peer-common.js';
import { sendParamsV03, sendRequestV1, userMessageV03, userMessageV1, type TransportName } from '../peers/clients.js';
import { collect, within, withDeadline } from '../peers/deadline.js';
import { asTask, stateName } from '../peers/inspect.js';
import type { RunningGateway } from '../../src/gateway/gateway.js';
import {
  agentCalls,
  call,
  comparable,
  startAccessGateway,
  startWebhook,
  unknownTaskId,
  rpc,
  V1,
  wireMessageV03,
  wireMessageV1,
  type PrincipalName,
  type RawCall,
  type Webhook,
} from './support/harness.js';
import { clientV03As, clientV1As } from './support/auth-clients.js';
import {
  endpoints,
  restMessageV03,
  taskCall,
  TASK_OPS,
  type Binding,
  type TaskOp,
  type WireCall,
} from './support/wire.js';

const STEP = 20;
/** Long enough that only a cancel ends the task: "while the stream is open" is then certain. */
const HELD = 'sleep:60000 stream and hold';

let v1Peer: Peer;
let v03Peer: Peer;
let gateway: RunningGateway;
let webhook: Webhook;

beforeAll(async () => {
  [v1Peer, v03Peer, webhook] = await Promise.all([
    startPeerV1({ stepMs: STEP }),
    startPeerV03({ stepMs: STEP }),
    startWebhook(),
  ]);
  // taskOwnership defaults to on with `auth`; every principal of team-a may call every operation.
  gateway = await startAccessGateway(
    {
      v1: { url: v1Peer.url, access: { allow: ['team-a'] } },
      v03: { url: v03Peer.url, access: { allow: ['team-a'] } },
    },
    { pushNotifications: { allow: ['127.0.0.1/32'] } },
  );
});
afterAll(async () => {
  await gateway?.close();
  await Promise.all([v1Peer?.close(), v03Peer?.close(), webhook?.close()]);
});

const bindingOf = (transport: TransportName): Binding => (transport === 'JSONRPC' ? 'jsonrpc' : 'rest');
const TRANSPORTS: TransportName[] = ['JSONRPC', 'HTTP+JSON'];

/** bob's raw `op` on `taskId` answers exactly as the same call on a task id never seen. */
async function expectIndistinguishable(
  peer: Peer,
  urls: ReturnType<typeof endpoints>,
  version: '1.0' | '0.3',
  binding: Binding,
  op: TaskOp,
  taskId: string,
): Promise<void> {
  const since = peer.requests.length;
  const other = taskCall(urls, version, binding, op, taskId);
  const stranger = unknownTaskId();
  const never = taskCall(urls, version, binding, op, stranger);
  const mine = await call(other.url, 'bob', other.opts);
  const unknown = await call(never.url, 'bob', never.opts);
  expect(comparable(mine, taskId), `${op} on alice's task vs on a never-seen task`).toEqual(
    comparable(unknown, stranger),
  );
  // And that answer is the protocol's TaskNotFound, in the shape of the version: for a 0.3
  // JSON-RPC stream, one `event: error` in a 200 event stream, as the 0.3.14 agent answers it.
  const sse = binding === 'jsonrpc' && version === '0.3' && (op === 'SubscribeToTask' || op === 'SendStreamingMessage');
  if (sse) {
    expect(mine.contentType).toBe('text/event-stream');
    expect(mine.text.startsWith('event: error\ndata: ')).toBe(true);
  }
  const body = (sse ? JSON.parse(mine.text.slice('event: error\ndata: '.length)) : mine.json) as Record<string, any>;
  if (binding === 'jsonrpc') {
    expect(mine.status).toBe(200);
    expect(body).toMatchObject({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32001, message: `Task not found: ${taskId}` },
    });
    if (version === '1.0') {
      expect(body.error.data).toEqual([
        expect.objectContaining({ reason: 'TASK_NOT_FOUND', domain: 'a2a-protocol.org' }),
      ]);
    } else expect(body.error.data).toBeUndefined();
  } else if (version === '1.0') {
    expect(mine.status).toBe(404);
    expect(body.error).toMatchObject({ code: 404, status: 'NOT_FOUND', message: `Task not found: ${taskId}` });
    expect(body.error.details).toEqual([expect.objectContaining({ reason: 'TASK_NOT_FOUND' })]);
  } else {
    expect(mine.status).toBe(404);
    expect(body).toEqual({ code: -32001, message: `Task not found: ${taskId}` });
  }
  expect(agentCalls(peer, since), `the agent heard of bob's ${op}`).toEqual([]);
}

/**
 * `promise` is refused the way the SDK client refuses an unknown task: its TaskNotFound error type
 * (or, for a 0.3.14 stream, the generic stream error it raises with that type as its `cause`, as
 * against a real 0.3 agent).
 */
async function expectSdkRefusal(promise: Promise<unknown>, type: abstract new (...args: never[]) => Error) {
  const outcome = await withDeadline(
    promise.then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    ),
    5000,
    'SDK call',
  );
  if (!('error' in outcome)) throw new Error(`the call succeeded: ${JSON.stringify(outcome.value).slice(0, 300)}`);
  const error: unknown = outcome.error;
  const cause = (error as { cause?: unknown } | null)?.cause;
  const refused = error instanceof type || cause instanceof type;
  expect(refused, `expected ${type.name}, got ${String(error)}`).toBe(true);
}

async function firstEvent<T>(stream: AsyncGenerator<T>): Promise<T> {
  const next = await withDeadline(stream.next(), 5000, 'first stream event');
  if (next.done) throw new Error('the stream ended before its first event');
  return next.value;
}

describe.each(TRANSPORTS)('A2A 1.0 task ownership over %s', (transport) => {
  const binding = bindingOf(transport);
  const urls = () => endpoints(gateway.url, 'v1');
  const client = (who: PrincipalName) => withDeadline(clientV1As(who, urls().base, transport), 5000, 'card');
  let parked: Task; // alice's task in INPUT_REQUIRED
  let held: { id: string; stream: AsyncGenerator<StreamResponse> }; // alice's open stream

  beforeAll(async () => {
    const alice = await client('alice');
    parked = asTask(await alice.sendMessage(sendRequestV1(userMessageV1('needs input')), within(5000)));
    expect(stateName(parked.status?.state)).toBe('INPUT_REQUIRED');
    // alice registers a webhook on her task, so "get/list push config" have something to find.
    await alice.createTaskPushNotificationConfig(
      { tenant: '', taskId: parked.id, id: 'cfg-1', url: webhook.url, token: 'tok', authentication: undefined },
      within(5000),
    );
    const stream = alice.sendMessageStream(sendRequestV1(userMessageV1(HELD)), within(20_000));
    const first = await firstEvent(stream);
    if (first.payload?.$case !== 'task') throw new Error(`stream opened with ${first.payload?.$case}`);
    held = { id: first.payload.value.id, stream };
  });
  afterAll(async () => {
    await held?.stream.return(undefined);
  });

  it.each(TASK_OPS)("bob's %s on alice's parked task is answered as for an unknown task", async (op) => {
    await expectIndistinguishable(v1Peer, urls(), '1.0', binding, op, parked.id);
  });

  it.each(['GetTask', 'CancelTask', 'SubscribeToTask', 'SendMessage'] as const)(
    "bob's %s on alice's task is unknown while alice's stream of it is still open",
    async (op) => {
      await expectIndistinguishable(v1Peer, urls(), '1.0', binding, op, held.id);
    },
  );

  const sdkCallsV1: Record<string, (bob: Client, taskId: string) => Promise<unknown>> = {
    getTask: (bob, id) => bob.getTask({ tenant: '', id }, within(3000)),
    cancelTask: (bob, id) => bob.cancelTask({ tenant: '', id, metadata: undefined }, within(3000)),
    resubscribeTask: (bob, id) => firstEvent(bob.resubscribeTask({ tenant: '', id }, within(3000))),
    'sendMessage (continue)': (bob, taskId) =>
      bob.sendMessage(sendRequestV1(userMessageV1('continue it', { taskId })), within(3000)),
    'sendMessageStream (continue)': (bob, taskId) =>
      firstEvent(bob.sendMessageStream(sendRequestV1(userMessageV1('continue it', { taskId })), within(3000))),
    getTaskPushNotificationConfig: (bob, taskId) =>
      bob.getTaskPushNotificationConfig({ tenant: '', taskId, id: 'cfg-1' }, within(3000)),
    listTaskPushNotificationConfig: (bob, taskId) =>
      bob.listTaskPushNotificationConfig({ tenant: '', taskId, pageSize: 0, pageToken: '' }, within(3000)),
  };

  it.each(Object.keys(sdkCallsV1))(
    "bob's SDK %s on alice's tasks raises TaskNotFoundError; the agent hears none",
    async (name) => {
      const bob = await client('bob');
      const since = v1Peer.requests.length;
      for (const taskId of [parked.id, held.id])
        await expectSdkRefusal(sdkCallsV1[name]!(bob, taskId), TaskNotFoundError);
      expect(agentCalls(v1Peer, since)).toEqual([]);
    },
  );

  it('alice can still do all of it on her own tasks', async () => {
    const alice = await client('alice');
    expect((await alice.getTask({ tenant: '', id: held.id }, within(3000))).id).toBe(held.id);
    const configs = await alice.listTaskPushNotificationConfig(
      { tenant: '', taskId: parked.id, pageSize: 0, pageToken: '' },
      within(3000),
    );
    expect(configs.configs.map((c) => c.url)).toEqual([webhook.url]);
    const config = await alice.getTaskPushNotificationConfig(
      { tenant: '', taskId: parked.id, id: 'cfg-1' },
      within(3000),
    );
    expect(config.url).toBe(webhook.url);
    // Subscribe to her running task: the subscription opens with the task.
    const subscription = alice.resubscribeTask({ tenant: '', id: held.id }, within(5000));
    const opened = await firstEvent(subscription);
    expect(opened.payload?.$case === 'task' && opened.payload.value.id).toBe(held.id);
    await subscription.return(undefined);
    // Continue the parked task, and cancel the held one: its stream ends CANCELED.
    const continued = asTask(
      await alice.sendMessage(
        sendRequestV1(userMessageV1('here are the details', { taskId: parked.id })),
        within(5000),
      ),
    );
    expect([continued.id, stateName(continued.status?.state)]).toEqual([parked.id, 'COMPLETED']);
    const canceled = await alice.cancelTask({ tenant: '', id: held.id, metadata: undefined }, within(5000));
    expect(stateName(canceled.status?.state)).toBe('CANCELED');
    const rest = await collect(held.stream, 5000, 'held stream');
    const last = rest.at(-1)?.payload;
    expect(last?.$case === 'statusUpdate' && last.value.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
  });
});

describe.each(TRANSPORTS)('ListTasks (A2A 1.0) over %s shows each caller only their own tasks', (transport) => {
  const binding = bindingOf(transport);
  const client = (who: PrincipalName) =>
    withDeadline(clientV1As(who, endpoints(gateway.url, 'v1').base, transport), 5000, 'card');
  const created: Record<'alice' | 'bob', Set<string>> = { alice: new Set(), bob: new Set() };

  beforeAll(async () => {
    for (const who of ['alice', 'bob', 'alice'] as const) {
      const c = await client(who);
      const task = asTask(await c.sendMessage(sendRequestV1(userMessageV1('needs input')), within(5000)));
      created[who].add(task.id);
    }
  });

  const list = async (who: PrincipalName) =>
    (await client(who)).listTasks(
      {
        tenant: '',
        contextId: '',
        status: TaskState.TASK_STATE_UNSPECIFIED,
        pageToken: '',
        statusTimestampAfter: undefined,
      },
      within(3000),
    );

  it('alice sees her tasks and none of bob’s; bob sees his own only; totalSize is the kept count', async () => {
    const [mine, his] = [await list('alice'), await list('bob')];
    const mineIds = mine.tasks.map((t) => t.id);
    const hisIds = his.tasks.map((t) => t.id);
    for (const id of created.alice) expect(mineIds).toContain(id);
    for (const id of created.bob) expect(mineIds).not.toContain(id);
    // bob created exactly these through this gateway (his other tasks are on other transports' runs).
    for (const id of created.bob) expect(hisIds).toContain(id);
    for (const id of hisIds) expect(created.alice.has(id), `bob sees alice's ${id}`).toBe(false);
    expect(mine.totalSize).toBe(mine.tasks.length);
    expect(his.totalSize).toBe(his.tasks.length);
  });

  it('the raw answer carries no other caller’s task anywhere, and totalSize counts what is left', async () => {
    const urls = endpoints(gateway.url, 'v1');
    const reply =
      binding === 'jsonrpc'
        ? await call(urls.jsonrpc, 'bob', {
            body: { jsonrpc: '2.0', id: 3, method: 'ListTasks', params: {} },
            headers: V1,
          })
        : await call(`${urls.rest}/tasks`, 'bob', { headers: V1 });
    expect(reply.status).toBe(200);
    for (const id of created.alice) expect(reply.text).not.toContain(id);
    const doc = reply.json as { result?: { tasks: Task[]; totalSize: number }; tasks?: Task[]; totalSize?: number };
    const page = binding === 'jsonrpc' ? doc.result! : (doc as { tasks: Task[]; totalSize: number });
    expect(page.totalSize).toBe(page.tasks.length);
    expect(page.tasks.length).toBeGreaterThan(0);
    // The body was rewritten: its length header must match what was sent.
    expect(Number(reply.headers.get('content-length'))).toBe(Buffer.byteLength(reply.text));
  });
});

describe.each(TRANSPORTS)('A2A 0.3 task ownership over %s', (transport) => {
  const binding = bindingOf(transport);
  const urls = () => endpoints(gateway.url, 'v03');
  const client = (who: PrincipalName): Promise<ClientV03> =>
    withDeadline(clientV03As(who, urls().base, transport), 5000, 'card');
  let parked: TaskV03;
  let held: { id: string; stream: AsyncGenerator<unknown> };

  beforeAll(async () => {
    const alice = await client('alice');
    const sent = await alice.sendMessage(sendParamsV03(userMessageV03('needs input')), within(5000));
    if (sent.kind !== 'task') throw new Error('expected a task');
    parked = sent;
    expect(parked.status.state).toBe('input-required');
    // Over JSON-RPC whatever the transport: the 0.3.14 REST client's set is not what its server reads.
    const setter = await withDeadline(clientV03As('alice', urls().base, 'JSONRPC'), 5000, 'card');
    await setter.setTaskPushNotificationConfig(
      { taskId: parked.id, pushNotificationConfig: { id: 'cfg-1', url: webhook.url, token: 'tok' } },
      within(5000),
    );
    const stream = alice.sendMessageStream(sendParamsV03(userMessageV03(HELD)), within(20_000));
    const first = (await firstEvent(stream)) as { kind: string; id: string };
    if (first.kind !== 'task') throw new Error(`stream opened with ${first.kind}`);
    held = { id: first.id, stream };
  });
  afterAll(async () => {
    await held?.stream.return(undefined);
  });

  it.each(TASK_OPS)("bob's %s on alice's parked task is answered as for an unknown task", async (op) => {
    await expectIndistinguishable(v03Peer, urls(), '0.3', binding, op, parked.id);
  });

  it.each(['GetTask', 'CancelTask', 'SubscribeToTask', 'SendMessage'] as const)(
    "bob's %s on alice's task is unknown while alice's stream of it is still open",
    async (op) => {
      await expectIndistinguishable(v03Peer, urls(), '0.3', binding, op, held.id);
    },
  );

  const sdkCallsV03: Record<string, (bob: ClientV03, id: string) => Promise<unknown>> = {
    getTask: (bob, id) => bob.getTask({ id }, within(3000)),
    cancelTask: (bob, id) => bob.cancelTask({ id }, within(3000)),
    resubscribeTask: (bob, id) => firstEvent(bob.resubscribeTask({ id }, within(3000))),
    'sendMessage (continue)': (bob, taskId) =>
      bob.sendMessage(sendParamsV03(userMessageV03('continue it', { taskId })), within(3000)),
    'sendMessageStream (continue)': (bob, taskId) =>
      firstEvent(bob.sendMessageStream(sendParamsV03(userMessageV03('continue it', { taskId })), within(3000))),
    getTaskPushNotificationConfig: (bob, id) => {
      const params: GetTaskPushNotificationConfigParams = { id, pushNotificationConfigId: 'cfg-1' };
      return bob.getTaskPushNotificationConfig(params, within(3000));
    },
    listTaskPushNotificationConfig: (bob, id) => bob.listTaskPushNotificationConfig({ id }, within(3000)),
  };

  it.each(Object.keys(sdkCallsV03))(
    "bob's SDK %s on alice's tasks raises TaskNotFoundError; the agent hears none",
    async (name) => {
      const bob = await client('bob');
      const since = v03Peer.requests.length;
      for (const id of [parked.id, held.id]) await expectSdkRefusal(sdkCallsV03[name]!(bob, id), TaskNotFoundErrorV03);
      expect(agentCalls(v03Peer, since)).toEqual([]);
    },
  );

  it('alice can still do all of it on her own tasks', async () => {
    const alice = await client('alice');
    expect((await alice.getTask({ id: held.id }, within(3000))).id).toBe(held.id);
    const configs = await alice.listTaskPushNotificationConfig({ id: parked.id }, within(3000));
    expect(configs.map((c) => c.pushNotificationConfig.url)).toEqual([webhook.url]);
    const get: GetTaskPushNotificationConfigParams = { id: parked.id, pushNotificationConfigId: 'cfg-1' };
    expect((await alice.getTaskPushNotificationConfig(get, within(3000))).pushNotificationConfig.url).toBe(webhook.url);
    const subscription = alice.resubscribeTask({ id: held.id }, within(5000));
    const opened = (await firstEvent(subscription)) as { kind: string; id?: string; taskId?: string };
    expect(opened.id ?? opened.taskId).toBe(held.id);
    await subscription.return(undefined);
    const continued = await alice.sendMessage(
      sendParamsV03(userMessageV03('here are the details', { taskId: parked.id })),
      within(5000),
    );
    expect(continued.kind === 'task' && [continued.id, continued.status.state]).toEqual([parked.id, 'completed']);
    const canceled = await alice.cancelTask({ id: held.id }, within(5000));
    expect(canceled.status.state).toBe('canceled');
    const rest = (await collect(held.stream, 5000, 'held stream')) as Array<StatusEventV03 | { kind: string }>;
    const last = rest.at(-1) as StatusEventV03 | undefined;
    expect(last?.kind === 'status-update' && last.status.state).toBe('canceled');
  });
});

/**
 * What the agent accepts, not only what the SDK clients send: Express routes are case-insensitive
 * and take a trailing slash, the SDKs' proto-JSON readers take snake_case names (`task_id`), the
 * 0.3.14 push-config reader takes the task from `params.id` or the REST body's `parent`, and a
 * REST route ignores a body that merely looks like JSON-RPC. Each spelling here reaches alice's
 * task at the agent; the gateway must not let bob's call through (how it refuses is its choice).
 */
describe('task ownership holds for every spelling the agents accept', () => {
  let bobV03: string; // bob's own 0.3 task, for the calls that pair it with alice's
  const v1 = () => endpoints(gateway.url, 'v1');
  const v03 = () => endpoints(gateway.url, 'v03');

  /** A new task of alice's in INPUT_REQUIRED with push config cfg-1: each case gets its own. */
  async function aliceTaskV1(): Promise<string> {
    const sent = await call(v1().jsonrpc, 'alice', {
      body: rpc('SendMessage', { message: wireMessageV1('needs input') }),
      headers: V1,
    });
    const id = (sent.json as { result: { task: Task } }).result.task.id;
    const set = await call(v1().jsonrpc, 'alice', {
      body: rpc('CreateTaskPushNotificationConfig', { taskId: id, id: 'cfg-1', url: webhook.url, token: 'tok' }),
      headers: V1,
    });
    expect(set.text).toContain(webhook.url);
    return id;
  }

  async function taskV03(who: PrincipalName): Promise<string> {
    const sent = await call(v03().jsonrpc, who, {
      body: rpc('message/send', { message: wireMessageV03('needs input') }),
    });
    const id = (sent.json as { result: TaskV03 }).result.id;
    const set = await call(v03().jsonrpc, who, {
      body: rpc('tasks/pushNotificationConfig/set', {
        taskId: id,
        pushNotificationConfig: { id: 'cfg-1', url: webhook.url },
      }),
    });
    expect(set.text).toContain(webhook.url);
    return id;
  }

  beforeAll(async () => {
    bobV03 = await taskV03('bob');
  });

  /** bob's call must not reach the agent (a TaskNotFound or any other refusal will do). */
  async function expectUnheard(peer: Peer, url: string, opts: Parameters<typeof call>[2]): Promise<void> {
    const since = peer.requests.length;
    const reply = await call(url, 'bob', opts);
    const heard = agentCalls(peer, since).map((r) => `${r.method} ${r.path}`);
    expect(heard, `the agent answered bob with ${reply.status}: ${reply.text.slice(0, 200)}`).toEqual([]);
  }

  const snake = (text: string, taskId: string) => {
    const { taskId: _omit, ...message } = wireMessageV1(text, taskId);
    return { ...message, task_id: taskId };
  };
  const w = (url: string, opts: RawCall): WireCall => ({ url, opts });
  const rpc1 = (method: string, params: unknown): RawCall => ({ body: rpc(method, params), headers: V1 });
  const rpc03 = (method: string, params: unknown): RawCall => ({ body: rpc(method, params) });

  const cases1: Array<[string, (id: string) => WireCall]> = [
    ['GET …/tasks/{id}/ (trailing slash)', (id) => w(`${v1().rest}/tasks/${id}/`, { headers: V1 })],
    ['GET …/TASKS/{id} (upper case)', (id) => w(`${v1().rest}/TASKS/${id}`, { headers: V1 })],
    [
      'POST …/tasks/{id}:cancel/ (trailing slash)',
      (id) => w(`${v1().rest}/tasks/${id}:cancel/`, { body: {}, headers: V1 }),
    ],
    [
      'GET …/tasks/{id}/pushNotificationConfigs/cfg-1/ (trailing slash)',
      (id) => w(`${v1().rest}/tasks/${id}/pushNotificationConfigs/cfg-1/`, { headers: V1 }),
    ],
    [
      'POST …/tasks/{id}:cancel with a body that looks like a JSON-RPC SendMessage',
      (id) => w(`${v1().rest}/tasks/${id}:cancel`, rpc1('SendMessage', { message: wireMessageV1('hi?') })),
    ],
    [
      'REST message:send with `jsonrpc` in the body and the task id in the message',
      (id) =>
        w(`${v1().rest}/message:send`, { body: { jsonrpc: '2.0', message: wireMessageV1('more', id) }, headers: V1 }),
    ],
    [
      'JSON-RPC SendMessage naming the task as message.task_id',
      (id) => w(v1().jsonrpc, rpc1('SendMessage', { message: snake('more', id) })),
    ],
    [
      'REST message:send naming the task as message.task_id',
      (id) => w(`${v1().rest}/message:send`, { body: { message: snake('more', id) }, headers: V1 }),
    ],
    [
      // The SDK agent loads referenced tasks for its executor: referring to alice's task would hand it over.
      "JSON-RPC SendMessage of a new task referring to alice's task (referenceTaskIds)",
      (id) =>
        w(v1().jsonrpc, rpc1('SendMessage', { message: { ...wireMessageV1('compare'), referenceTaskIds: [id] } })),
    ],
    [
      "REST message:send referring to alice's task as reference_task_ids",
      (id) =>
        w(`${v1().rest}/message:send`, {
          body: { message: { ...wireMessageV1('compare'), reference_task_ids: ['unrelated', id] } },
          headers: V1,
        }),
    ],
    [
      'JSON-RPC GetTaskPushNotificationConfig naming the task as task_id',
      (id) => w(v1().jsonrpc, rpc1('GetTaskPushNotificationConfig', { task_id: id, id: 'cfg-1' })),
    ],
    [
      'JSON-RPC ListTaskPushNotificationConfigs naming the task as task_id',
      (id) => w(v1().jsonrpc, rpc1('ListTaskPushNotificationConfigs', { task_id: id })),
    ],
  ];
  it.each(cases1)('A2A 1.0: %s', async (_name, request) => {
    const { url, opts } = request(await aliceTaskV1());
    await expectUnheard(v1Peer, url, opts);
  });

  it('A2A 1.0: ListTasks at …/tasks/ (trailing slash) shows bob none of alice’s tasks', async () => {
    const alices = await aliceTaskV1();
    const reply = await call(`${v1().rest}/tasks/`, 'bob', { headers: V1 });
    expect(reply.text, `status ${reply.status}`).not.toContain(alices);
  });

  const cases03: Array<[string, (alice: string) => WireCall]> = [
    ['GET …/v1/tasks/{id}/ (trailing slash)', (alice) => w(`${v03().rest}/v1/tasks/${alice}/`, {})],
    ['GET …/V1/TASKS/{id} (upper case)', (alice) => w(`${v03().rest}/V1/TASKS/${alice}`, {})],
    [
      'REST message:send naming the task as message.task_id',
      (alice) => {
        const { taskId: _omit, ...message } = restMessageV03('more', alice);
        return w(`${v03().rest}/v1/message:send`, { body: { message: { ...message, task_id: alice } } });
      },
    ],
    [
      'tasks/pushNotificationConfig/get with bob’s task as taskId and alice’s as id (the agent reads id)',
      (alice) =>
        w(
          v03().jsonrpc,
          rpc03('tasks/pushNotificationConfig/get', { taskId: bobV03, id: alice, pushNotificationConfigId: 'cfg-1' }),
        ),
    ],
    [
      'tasks/pushNotificationConfig/list with bob’s task as taskId and alice’s as id (the agent reads id)',
      (alice) => w(v03().jsonrpc, rpc03('tasks/pushNotificationConfig/list', { taskId: bobV03, id: alice })),
    ],
    [
      'REST set push config on bob’s task path whose body `parent` names alice’s task (the agent reads parent)',
      (alice) =>
        w(`${v03().rest}/v1/tasks/${bobV03}/pushNotificationConfigs`, {
          body: {
            parent: `tasks/${alice}`,
            configId: 'bobs',
            config: {
              name: `tasks/${alice}/pushNotificationConfigs/bobs`,
              pushNotificationConfig: { id: 'bobs', url: webhook.url },
            },
          },
        }),
    ],
    [
      'tasks/pushNotificationConfig/delete with bob’s task as taskId and alice’s as id (the agent reads id)',
      (alice) =>
        w(
          v03().jsonrpc,
          rpc03('tasks/pushNotificationConfig/delete', {
            taskId: bobV03,
            id: alice,
            pushNotificationConfigId: 'cfg-1',
          }),
        ),
    ],
  ];
  it.each(cases03)('A2A 0.3: %s', async (_name, request) => {
    const { url, opts } = request(await taskV03('alice'));
    await expectUnheard(v03Peer, url, opts);
  });
});

/**
 * A context is a conversation the agent may remember: a message from bob into the context of
 * alice's answer is refused before the agent hears it; alice goes on in it, and bob starts
 * contexts of his own by naming none. A context id the gateway has not seen come back to bob is
 * refused as alice's is (`access.clientContextIds` off, the default: test/hostile/context-eviction.test.ts).
 */
describe('context ownership', () => {
  const v1 = () => endpoints(gateway.url, 'v1');
  const v03 = () => endpoints(gateway.url, 'v03');

  async function aliceContextV1(): Promise<string> {
    const sent = await call(v1().jsonrpc, 'alice', {
      body: rpc('SendMessage', { message: wireMessageV1('what?') }),
      headers: V1,
    });
    const result = (sent.json as { result: { message?: { contextId: string }; task?: { contextId: string } } }).result;
    return (result.message ?? result.task)!.contextId;
  }

  const messageIn = (contextId: string, spelling: 'contextId' | 'context_id' = 'contextId') => ({
    ...wireMessageV1('and what did alice say?'),
    [spelling]: contextId,
  });

  it.each(['contextId', 'context_id'] as const)(
    "bob's message into alice's context (%s) is refused (403 in protocol); the agent hears nothing",
    async (spelling) => {
      const context = await aliceContextV1();
      const since = v1Peer.requests.length;
      const rpcReply = await call(v1().jsonrpc, 'bob', {
        body: rpc('SendMessage', { message: messageIn(context, spelling) }, 7),
        headers: V1,
      });
      expect(rpcReply.status).toBe(403);
      expect(rpcReply.json).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32000 } });
      expect(JSON.stringify(rpcReply.json)).toContain('PERMISSION_DENIED');
      const restReply = await call(`${v1().rest}/message:send`, 'bob', {
        body: { message: messageIn(context, spelling) },
        headers: V1,
      });
      expect(restReply.status).toBe(403);
      expect(restReply.json).toMatchObject({ error: { code: 403, status: 'PERMISSION_DENIED' } });
      expect(agentCalls(v1Peer, since)).toEqual([]);
    },
  );

  it('alice goes on in her context, and bob starts his own by naming none', async () => {
    const context = await aliceContextV1();
    const again = await call(v1().jsonrpc, 'alice', {
      body: rpc('SendMessage', { message: messageIn(context) }),
      headers: V1,
    });
    expect(again.status).toBe(200);
    expect(JSON.stringify(again.json)).toContain(context);
    const bobs = await call(v1().jsonrpc, 'bob', {
      body: rpc('SendMessage', { message: wireMessageV1('a new conversation') }),
      headers: V1,
    });
    expect(bobs.status).toBe(200);
    const result = (bobs.json as { result: { message?: { contextId: string }; task?: { contextId: string } } }).result;
    const fresh = (result.message ?? result.task)!.contextId;
    expect(fresh).not.toBe(context);
    const follow = await call(v1().jsonrpc, 'bob', {
      body: rpc('SendMessage', { message: messageIn(fresh) }),
      headers: V1,
    });
    expect(follow.status).toBe(200);
    expect(JSON.stringify(follow.json)).toContain(fresh);
  });

  it("a context id bob chose himself is refused as alice's is; the agent hears nothing", async () => {
    const since = v1Peer.requests.length;
    const reply = await call(v1().jsonrpc, 'bob', {
      body: rpc('SendMessage', { message: messageIn(`bob-context-${unknownTaskId()}`) }, 7),
      headers: V1,
    });
    expect(reply.status).toBe(403);
    expect(JSON.stringify(reply.json)).toContain('PERMISSION_DENIED');
    expect(agentCalls(v1Peer, since)).toEqual([]);
  });

  it("0.3: bob's message/send into alice's context is refused; the agent hears nothing", async () => {
    const sent = await call(v03().jsonrpc, 'alice', {
      body: rpc('message/send', { message: wireMessageV03('what?') }),
    });
    const context = (sent.json as { result: { contextId: string } }).result.contextId;
    const since = v03Peer.requests.length;
    const reply = await call(v03().jsonrpc, 'bob', {
      body: rpc('message/send', { message: { ...wireMessageV03('and alice?'), contextId: context } }, 9),
    });
    expect(reply.status).toBe(403);
    expect(reply.json).toMatchObject({ jsonrpc: '2.0', id: 9, error: { code: -32000 } });
    expect(agentCalls(v03Peer, since)).toEqual([]);
  });
});
