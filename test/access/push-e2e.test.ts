/**
 * The push-webhook SSRF guard through the gateway (issue #13 item 6), in front of the real SDK
 * agents (1.3.0 and 0.3.14, both with push notifications on). A webhook that is not public is
 * refused wherever a request can carry one — CreateTaskPushNotificationConfig and a SendMessage
 * whose configuration holds a push config, per binding and version — with the protocol's
 * InvalidParams, a `gateway.push-url-refused` finding and `record.access.pushRefused`; the agent
 * never receives the request. With `pushNotifications.allow: [127.0.0.1/32]` a real loopback
 * receiver is let through: the agent stores the config and delivers the task's updates to it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskState, type Task } from '@a2a-js/sdk';
import type { Task as TaskV03 } from 'a2a-sdk-v03';
import { startPeerV1 } from '../peers/peer-v1.js';
import { startPeerV03 } from '../peers/peer-v03.js';
import type { Peer } from '../peers/peer-common.js';
import { sendParamsV03, sendRequestV1, userMessageV03, userMessageV1 } from '../peers/clients.js';
import { pollUntil, within, withDeadline } from '../peers/deadline.js';
import { asTask } from '../peers/inspect.js';
import type { RunningGateway } from '../../src/gateway/gateway.js';
import type { ExchangeRecord } from '../../src/exchange/record.js';
import {
  agentCalls,
  call,
  recordExchanges,
  rpc,
  startAccessGateway,
  startWebhook,
  V1,
  wireMessageV03,
  wireMessageV1,
  type RawCall,
  type RawReply,
  type Webhook,
} from './support/harness.js';
import { clientV03As, clientV1As } from './support/auth-clients.js';
import { endpoints, restMessageV03, type Binding, type Version } from './support/wire.js';

const REFUSED: ReadonlyArray<[url: string, rule: string]> = [
  ['http://169.254.169.254/latest/meta-data', 'push-url-address'],
  ['http://0x7f000001/', 'push-url-address'],
  ['http://[::ffff:127.0.0.1]/', 'push-url-address'],
  ['http://10.0.0.1/', 'push-url-address'],
  ['http://2130706433/', 'push-url-address'],
  ['ftp://example.com/', 'push-url-scheme'],
];
/** Refused even where 127.0.0.1/32 is allowed (the loopback spellings above name 127.0.0.1). */
const REFUSED_DESPITE_ALLOW = REFUSED.filter(([url]) => !/0x7f000001|::ffff:127|2130706433/.test(url));

let v1Peer: Peer;
let v03Peer: Peer;
let strict: RunningGateway; // guard on, nothing allowed
let allowing: RunningGateway; // guard on, 127.0.0.1/32 allowed
let records: ExchangeRecord[];
let webhook: Webhook;

beforeAll(async () => {
  [v1Peer, v03Peer, webhook] = await Promise.all([
    startPeerV1({ stepMs: 20 }),
    startPeerV03({ stepMs: 20 }),
    startWebhook(),
  ]);
  const recorder = recordExchanges();
  records = recorder.records;
  const agents = { v1: { url: v1Peer.url }, v03: { url: v03Peer.url } };
  strict = await startAccessGateway(agents, {}, [recorder.observer]);
  allowing = await startAccessGateway(agents, { pushNotifications: { allow: ['127.0.0.1/32'] } }, [recorder.observer]);
});
afterAll(async () => {
  await Promise.all([strict?.close(), allowing?.close()]);
  await Promise.all([v1Peer?.close(), v03Peer?.close(), webhook?.close()]);
});

/** A task of alice's parked in input-required, made through `gw` (so she owns it there). */
async function parkedTask(gw: RunningGateway, version: Version): Promise<string> {
  if (version === '1.0') {
    const reply = await call(endpoints(gw.url, 'v1').jsonrpc, 'alice', {
      body: rpc('SendMessage', { message: wireMessageV1('needs input') }),
      headers: V1,
    });
    return (reply.json as { result: { task: Task } }).result.task.id;
  }
  const reply = await call(endpoints(gw.url, 'v03').jsonrpc, 'alice', {
    body: rpc('message/send', { message: wireMessageV03('needs input') }),
  });
  return (reply.json as { result: TaskV03 }).result.id;
}

interface PushCarrier {
  readonly name: string;
  readonly version: Version;
  readonly binding: Binding;
  /** The agent itself refuses this shape (SDK 0.3.14's REST client and server disagree on it). */
  readonly agentRefusesShape?: true;
  /** The request carrying webhook `url`, on alice's task `taskId` where it names one. */
  readonly request: (gw: RunningGateway, taskId: string, url: string) => { url: string; opts: RawCall };
}

const QUESTION = 'what is 6x7?'; // answered with a message: nothing is ever delivered anywhere

const CARRIERS: PushCarrier[] = [
  {
    name: '1.0 JSON-RPC CreateTaskPushNotificationConfig',
    version: '1.0',
    binding: 'jsonrpc',
    request: (gw, taskId, url) => ({
      url: endpoints(gw.url, 'v1').jsonrpc,
      opts: { body: rpc('CreateTaskPushNotificationConfig', { taskId, id: 'cfg', url, token: 'tok' }, 7), headers: V1 },
    }),
  },
  {
    name: '1.0 REST POST /tasks/{id}/pushNotificationConfigs',
    version: '1.0',
    binding: 'rest',
    request: (gw, taskId, url) => ({
      url: `${endpoints(gw.url, 'v1').rest}/tasks/${taskId}/pushNotificationConfigs`,
      opts: { body: { taskId, id: 'cfg', url, token: 'tok' }, headers: V1 },
    }),
  },
  {
    name: '1.0 JSON-RPC SendMessage with configuration.taskPushNotificationConfig',
    version: '1.0',
    binding: 'jsonrpc',
    request: (gw, _taskId, url) => ({
      url: endpoints(gw.url, 'v1').jsonrpc,
      opts: {
        body: rpc(
          'SendMessage',
          { message: wireMessageV1(QUESTION), configuration: { taskPushNotificationConfig: { id: 'cfg', url } } },
          7,
        ),
        headers: V1,
      },
    }),
  },
  {
    name: '1.0 JSON-RPC SendStreamingMessage with configuration.taskPushNotificationConfig',
    version: '1.0',
    binding: 'jsonrpc',
    request: (gw, _taskId, url) => ({
      url: endpoints(gw.url, 'v1').jsonrpc,
      opts: {
        body: rpc(
          'SendStreamingMessage',
          { message: wireMessageV1(QUESTION), configuration: { taskPushNotificationConfig: { id: 'cfg', url } } },
          7,
        ),
        headers: { ...V1, accept: 'text/event-stream' },
      },
    }),
  },
  {
    name: '1.0 REST message:send with configuration.taskPushNotificationConfig',
    version: '1.0',
    binding: 'rest',
    request: (gw, _taskId, url) => ({
      url: `${endpoints(gw.url, 'v1').rest}/message:send`,
      opts: {
        body: { message: wireMessageV1(QUESTION), configuration: { taskPushNotificationConfig: { id: 'cfg', url } } },
        headers: V1,
      },
    }),
  },
  {
    name: '0.3 JSON-RPC tasks/pushNotificationConfig/set',
    version: '0.3',
    binding: 'jsonrpc',
    request: (gw, taskId, url) => ({
      url: endpoints(gw.url, 'v03').jsonrpc,
      opts: {
        body: rpc('tasks/pushNotificationConfig/set', { taskId, pushNotificationConfig: { id: 'cfg', url } }, 7),
      },
    }),
  },
  {
    name: '0.3 JSON-RPC message/send with configuration.pushNotificationConfig',
    version: '0.3',
    binding: 'jsonrpc',
    request: (gw, _taskId, url) => ({
      url: endpoints(gw.url, 'v03').jsonrpc,
      opts: {
        body: rpc(
          'message/send',
          { message: wireMessageV03(QUESTION), configuration: { blocking: true, pushNotificationConfig: { url } } },
          7,
        ),
      },
    }),
  },
  {
    name: '0.3 REST POST /v1/tasks/{id}/pushNotificationConfigs (as the 0.3.14 client sends it)',
    version: '0.3',
    binding: 'rest',
    agentRefusesShape: true,
    request: (gw, taskId, url) => ({
      url: `${endpoints(gw.url, 'v03').rest}/v1/tasks/${taskId}/pushNotificationConfigs`,
      opts: {
        body: { name: `tasks/${taskId}/pushNotificationConfigs/cfg`, pushNotificationConfig: { id: 'cfg', url } },
      },
    }),
  },
  {
    name: '0.3 REST message:send with configuration.pushNotification',
    version: '0.3',
    binding: 'rest',
    request: (gw, _taskId, url) => ({
      url: `${endpoints(gw.url, 'v03').rest}/v1/message:send`,
      opts: {
        body: { message: restMessageV03(QUESTION), configuration: { blocking: true, pushNotification: { url } } },
      },
    }),
  },
];

/** The protocol's InvalidParams for a refused webhook, in the request's binding and version. */
function expectPushRefusal(reply: RawReply, carrier: PushCarrier, rule: string): void {
  const body = reply.json as Record<string, any>;
  if (carrier.binding === 'jsonrpc') {
    expect(reply.status).toBe(200);
    expect(reply.contentType).toBe('application/json');
    expect(body).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32602 } });
    expect(body.error.message).toMatch(/^push notification URL /);
    if (carrier.version === '1.0') {
      expect(body.error.data).toEqual([
        {
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: 'PUSH_URL_REFUSED',
          domain: 'a2a-gateway',
          metadata: { rule },
        },
      ]);
    } else expect(body.error.data).toBeUndefined();
  } else if (carrier.version === '1.0') {
    expect(reply.status).toBe(400);
    expect(reply.contentType).toBe('application/a2a+json');
    expect(body.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
    expect(body.error.message).toMatch(/^push notification URL /);
    expect(body.error.details).toEqual([expect.objectContaining({ reason: 'PUSH_URL_REFUSED', metadata: { rule } })]);
  } else {
    expect(reply.status).toBe(400);
    expect(body).toEqual({ code: -32602, message: expect.stringMatching(/^push notification URL /) });
  }
}

const peerOf = (carrier: PushCarrier) => (carrier.version === '1.0' ? v1Peer : v03Peer);

describe.each(CARRIERS)('a non-public webhook on $name is refused', (carrier) => {
  let taskId: string;
  let allowedTaskId: string;
  beforeAll(async () => {
    taskId = await parkedTask(strict, carrier.version);
    allowedTaskId = await parkedTask(allowing, carrier.version);
  });

  it.each(REFUSED)('%s → %s, and the agent never gets the request', async (url, rule) => {
    const peer = peerOf(carrier);
    const since = peer.requests.length;
    const { url: target, opts } = carrier.request(strict, taskId, url);
    const reply = await call(target, 'alice', opts);
    expectPushRefusal(reply, carrier, rule);
    expect(agentCalls(peer, since)).toEqual([]);
    const record = records.at(-1)!;
    expect(record.access).toEqual({ principal: 'alice', pushRefused: rule });
    expect(record.findings).toContainEqual({ rule: 'gateway.push-url-refused', count: 1, detail: rule });
  });

  it.each(REFUSED_DESPITE_ALLOW)('%s → %s even where 127.0.0.1/32 is allowed', async (url, rule) => {
    const peer = peerOf(carrier);
    const since = peer.requests.length;
    const { url: target, opts } = carrier.request(allowing, allowedTaskId, url);
    expectPushRefusal(await call(target, 'alice', opts), carrier, rule);
    expect(agentCalls(peer, since)).toEqual([]);
  });

  it('the allow-listed loopback receiver is let through to the agent', async () => {
    const peer = peerOf(carrier);
    const since = peer.requests.length;
    const { url: target, opts } = carrier.request(allowing, allowedTaskId, webhook.url);
    const reply = await call(target, 'alice', opts);
    if (!carrier.agentRefusesShape) expect(reply.status, reply.text).toBeLessThan(300);
    expect(reply.text).not.toContain('push notification URL');
    expect(agentCalls(peer, since)).toHaveLength(1);
    expect(records.at(-1)!.access?.pushRefused).toBeUndefined();
  });
});

describe('an allowed webhook gets the task’s updates from the agent', () => {
  const notified = (taskId: string, state: string) =>
    pollUntil(
      async () => webhook.received.filter((n) => JSON.stringify(n.body).includes(taskId)),
      (hits) => hits.some((n) => JSON.stringify(n.body).includes(state)),
      5000,
      `a ${state} notification for ${taskId}`,
    );

  it('1.0: SendMessage with a push config — the receiver gets the task through to COMPLETED', async () => {
    const alice = await withDeadline(clientV1As('alice', endpoints(allowing.url, 'v1').base, 'JSONRPC'), 5000, 'card');
    const request = sendRequestV1(userMessageV1('sleep:30 push me'), { returnImmediately: true });
    request.configuration!.taskPushNotificationConfig = {
      tenant: '',
      id: 'cfg-send',
      taskId: '',
      url: webhook.url,
      token: 'tok-send',
      authentication: undefined,
    };
    const task = asTask(await alice.sendMessage(request, within(5000)));
    const hits = await notified(task.id, 'TASK_STATE_COMPLETED');
    expect(hits[0]!.headers['x-a2a-notification-token']).toBe('tok-send');
  });

  it('1.0 REST: CreateTaskPushNotificationConfig on her task — stored at the agent, then delivered', async () => {
    const alice = await withDeadline(
      clientV1As('alice', endpoints(allowing.url, 'v1').base, 'HTTP+JSON'),
      5000,
      'card',
    );
    const task = asTask(await alice.sendMessage(sendRequestV1(userMessageV1('needs input')), within(5000)));
    await alice.createTaskPushNotificationConfig(
      { tenant: '', taskId: task.id, id: 'cfg-rest', url: webhook.url, token: 'tok-rest', authentication: undefined },
      within(5000),
    );
    const stored = await alice.getTaskPushNotificationConfig(
      { tenant: '', taskId: task.id, id: 'cfg-rest' },
      within(3000),
    );
    expect([stored.url, stored.token]).toEqual([webhook.url, 'tok-rest']);
    const done = asTask(
      await alice.sendMessage(sendRequestV1(userMessageV1('here are the details', { taskId: task.id })), within(5000)),
    );
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const hits = await notified(task.id, 'TASK_STATE_COMPLETED');
    expect(hits.every((n) => n.headers['x-a2a-notification-token'] === 'tok-rest')).toBe(true);
  });

  it('0.3: message/send with a push config — the receiver gets the 0.3 task through to completed', async () => {
    const alice = await withDeadline(
      clientV03As('alice', endpoints(allowing.url, 'v03').base, 'JSONRPC'),
      5000,
      'card',
    );
    const params = sendParamsV03(userMessageV03('sleep:30 push me'), { blocking: false });
    params.configuration!.pushNotificationConfig = { id: 'cfg-03', url: webhook.url, token: 'tok-03' };
    const sent = await alice.sendMessage(params, within(5000));
    if (sent.kind !== 'task') throw new Error('expected a task');
    const hits = await notified(sent.id, '"completed"');
    expect(hits[0]!.headers['x-a2a-notification-token']).toBe('tok-03');
  });
});

/**
 * Where the agent reads a webhook the gateway does not look: the SDKs' proto-JSON readers take
 * snake_case names, Express takes a trailing slash, a REST route ignores a body that looks like
 * JSON-RPC, and the 0.3.14 REST handler reads `config.pushNotificationConfig`. The guard must hold
 * there too: the agent must never get the cloud-metadata webhook.
 */
describe('the guard holds for every spelling the agents accept', () => {
  const METADATA = 'http://169.254.169.254/latest/meta-data';
  const cases: Array<[string, Version, (taskId: string) => { url: string; opts: RawCall }]> = [
    [
      '1.0 JSON-RPC SendMessage with configuration.task_push_notification_config',
      '1.0',
      () => ({
        url: endpoints(strict.url, 'v1').jsonrpc,
        opts: {
          body: rpc('SendMessage', {
            message: wireMessageV1(QUESTION),
            configuration: { task_push_notification_config: { url: METADATA } },
          }),
          headers: V1,
        },
      }),
    ],
    [
      '1.0 REST message:send with configuration.task_push_notification_config',
      '1.0',
      () => ({
        url: `${endpoints(strict.url, 'v1').rest}/message:send`,
        opts: {
          body: {
            message: wireMessageV1(QUESTION),
            configuration: { task_push_notification_config: { url: METADATA } },
          },
          headers: V1,
        },
      }),
    ],
    [
      '1.0 REST POST …/pushNotificationConfigs/ (trailing slash)',
      '1.0',
      (taskId) => ({
        url: `${endpoints(strict.url, 'v1').rest}/tasks/${taskId}/pushNotificationConfigs/`,
        opts: { body: { id: 'cfg', url: METADATA }, headers: V1 },
      }),
    ],
    [
      '1.0 REST POST …/pushNotificationConfigs with `jsonrpc` in the body',
      '1.0',
      (taskId) => ({
        url: `${endpoints(strict.url, 'v1').rest}/tasks/${taskId}/pushNotificationConfigs`,
        opts: { body: { jsonrpc: '2.0', id: 'cfg', url: METADATA }, headers: V1 },
      }),
    ],
    [
      '0.3 REST message:send with configuration.push_notification',
      '0.3',
      () => ({
        url: `${endpoints(strict.url, 'v03').rest}/v1/message:send`,
        opts: { body: { message: restMessageV03(QUESTION), configuration: { push_notification: { url: METADATA } } } },
      }),
    ],
    [
      '0.3 REST POST /v1/tasks/{id}/pushNotificationConfigs with config.pushNotificationConfig (what the agent reads)',
      '0.3',
      (taskId) => ({
        url: `${endpoints(strict.url, 'v03').rest}/v1/tasks/${taskId}/pushNotificationConfigs`,
        opts: {
          body: {
            parent: `tasks/${taskId}`,
            configId: 'cfg',
            config: {
              name: `tasks/${taskId}/pushNotificationConfigs/cfg`,
              pushNotificationConfig: { id: 'cfg', url: METADATA },
            },
          },
        },
      }),
    ],
  ];

  it.each(cases)('%s', async (_name, version, request) => {
    const peer = version === '1.0' ? v1Peer : v03Peer;
    const taskId = await parkedTask(strict, version);
    const since = peer.requests.length;
    const { url, opts } = request(taskId);
    const reply = await call(url, 'alice', opts);
    expect(agentCalls(peer, since), `the agent answered ${reply.status}: ${reply.text.slice(0, 200)}`).toEqual([]);
  });
});
