// The scenario list every SDK suite runs against an agent (a test peer directly, or a peer behind
// the gateway, with or without credentials): each function registers its `it(...)` cases in the
// calling `describe`, given a factory for the SDK client to drive.
//
// The peers understand the message texts used here (test/peers/peer-common.ts): a question gets a
// direct message, 'needs input' parks the task, 'fail'/'reject' end it, 'sleep:N …' keeps it running.
import { expect, it } from 'vitest';
import { TaskState } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { TaskNotFoundError } from '@a2a-js/sdk/errors';
import type { Message, Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent } from 'a2a-sdk-v03';
import type { Client as ClientV03 } from 'a2a-sdk-v03/client';
import { sendParamsV03, sendRequestV1, userMessageV03, userMessageV1, type TransportName } from './clients.js';
import { collect, pollUntil, within } from './deadline.js';
import { artifactTrace, asMessage, asTask, stateName, streamTaskId, texts, trace } from './inspect.js';

/** `send(text, opts)`: one blocking (or `returnImmediately`) SendMessage with the client `client()` gives. */
export function senderV1(client: () => Promise<Client>) {
  return async (text: string, opts: { taskId?: string; returnImmediately?: boolean } = {}) =>
    (await client()).sendMessage(sendRequestV1(userMessageV1(text, { taskId: opts.taskId }), opts), within(5000));
}

/** `send(text, opts)`: one message/send (`blocking: false` to return at once) with the client `client()` gives. */
export function senderV03(client: () => Promise<ClientV03>) {
  return async (text: string, opts: { taskId?: string; blocking?: boolean } = {}) =>
    (await client()).sendMessage(sendParamsV03(userMessageV03(text, { taskId: opts.taskId }), opts), within(5000));
}

/** Every event of the 1.0 stream `c` answers `text` with (SendStreamingMessage), within `ms`. */
export function streamV1(c: Client, text: string, ms = 5000) {
  return collect(c.sendMessageStream(sendRequestV1(userMessageV1(text)), within(ms)), ms, 'stream');
}

/** Every event of the 0.3 stream `c` answers `text` with (message/stream), within `ms`. */
export function streamV03(c: ClientV03, text: string, ms = 5000) {
  return collect(c.sendMessageStream(sendParamsV03(userMessageV03(text)), within(ms)), ms, 'stream');
}

/** The trace of a default task streamed by a 1.0 client (`last`: how the second chunk is reported). */
export const STREAMED_TASK_V1 = (last = 'artifact+append+last'): string[] => [
  'task:SUBMITTED',
  'status:WORKING',
  'artifact',
  last,
  'status:COMPLETED',
];

/** ListTasks with no filter (every task the agent keeps). */
export function listAllTasks(c: Client) {
  const all = { tenant: '', contextId: '', status: TaskState.TASK_STATE_UNSPECIFIED, pageToken: '' };
  return c.listTasks({ ...all, statusTimestampAfter: undefined }, within(2000));
}

export interface ScenarioOptionsV1 {
  /** Check first that the client picked `transport` (and protocol 1.0) from the card. */
  transport?: TransportName;
  /** The agent serves the extended card of the SDK 1.3.0 peer (or, through translation, the 0.3.14 one's). */
  extendedCard?: boolean;
  /** The agent behind the gateway is the other version's peer (test/translate): its card's name. */
  peerName?: string;
  /** Run the push-config round trip with this webhook URL (one the agent side accepts). */
  pushWebhook?: string;
  /** The agent lists tasks (default true; a 0.3 agent behind translation has no ListTasks). */
  listTasks?: boolean;
}

/** Create, get, list, delete a push config on a parked task (so the webhook is never called). */
async function pushConfigRoundTrip(c: Client, send: ReturnType<typeof senderV1>, url: string): Promise<void> {
  const task = asTask(await send('needs input'));
  const ref = { tenant: '', taskId: task.id, id: 'cfg-1' };
  const created = await c.createTaskPushNotificationConfig(
    { ...ref, url, token: 'tok', authentication: undefined },
    within(2000),
  );
  expect(created.url).toBe(url);
  expect((await c.getTaskPushNotificationConfig(ref, within(2000))).token).toBe('tok');
  const list = { tenant: '', taskId: task.id, pageSize: 0, pageToken: '' };
  expect((await c.listTaskPushNotificationConfig(list, within(2000))).configs.map((x) => x.id)).toEqual(['cfg-1']);
  await c.deleteTaskPushNotificationConfig(ref, within(2000));
  expect((await c.listTaskPushNotificationConfig(list, within(2000))).configs).toEqual([]);
}

/** The 1.0 scenarios, driven by the SDK 1.3.0 client `client()` gives. */
export function sdkScenariosV1(client: () => Promise<Client>, opts: ScenarioOptionsV1 = {}): void {
  const send = senderV1(client);

  const { transport } = opts;
  if (transport) {
    it('picks the requested transport from the card', async () => {
      const c = await client();
      expect(c.transport.protocolName).toBe(transport);
      expect(c.protocolVersion).toBe('1.0');
    });
  }

  it('answers a question with a direct message', async () => {
    const msg = asMessage(await send('what is 6x7?'));
    expect(texts(msg.parts)).toEqual(['You asked: what is 6x7? Answer: 42.']);
    expect(msg.contextId).not.toBe('');
  });

  it('runs a default task to COMPLETED with a 2-chunk artifact', async () => {
    const task = asTask(await send('process this'));
    expect(stateName(task.status?.state)).toBe('COMPLETED');
    expect(task.artifacts).toHaveLength(1);
    expect(task.artifacts[0]?.artifactId).toBe(`result-${task.id.slice(0, 8)}`);
    expect(texts(task.artifacts[0]?.parts)).toEqual(['chunk-1: processed "process this"; ', 'chunk-2: done.']);
  });

  it('parks "needs input" in INPUT_REQUIRED and completes on the follow-up', async () => {
    const first = asTask(await send('needs input'));
    expect(stateName(first.status?.state)).toBe('INPUT_REQUIRED');
    expect(texts(first.status?.message?.parts)).toEqual(['Please provide more details.']);
    const second = asTask(await send('here are the details', { taskId: first.id }));
    expect(second.id).toBe(first.id);
    expect(stateName(second.status?.state)).toBe('COMPLETED');
  });

  it('ends "fail" in FAILED and "reject" in REJECTED', async () => {
    const failed = asTask(await send('fail'));
    expect(stateName(failed.status?.state)).toBe('FAILED');
    expect(texts(failed.status?.message?.parts)[0]).toContain('requested failure');
    expect(stateName(asTask(await send('reject')).status?.state)).toBe('REJECTED');
  });

  it('returns immediately when asked and completes while GetTask polls', async () => {
    const task = asTask(await send('poll me', { returnImmediately: true }));
    expect(['SUBMITTED', 'WORKING']).toContain(stateName(task.status?.state));
    const c = await client();
    const done = await pollUntil(
      () => c.getTask({ tenant: '', id: task.id }, within(2000)),
      (t) => t.status?.state === TaskState.TASK_STATE_COMPLETED,
      5000,
      'task completion',
    );
    expect(done.id).toBe(task.id);
    expect(done.artifacts[0]?.parts).toHaveLength(2);
  });

  it('streams submitted → working → 2 chunks → completed', async () => {
    expect(trace(await streamV1(await client(), 'stream this'))).toEqual(STREAMED_TASK_V1());
  });

  it('lets a subscriber follow a running task to the end', async () => {
    const task = asTask(await send('sleep:150 subscribe to me', { returnImmediately: true }));
    const c = await client();
    const events = await collect(c.resubscribeTask({ tenant: '', id: task.id }, within(5000)), 5000, 'subscription');
    expect(streamTaskId(events)).toBe(task.id);
    expect(trace(events).at(-1)).toBe('status:COMPLETED');
  });

  it('cancels a running task', async () => {
    const task = asTask(await send('sleep:5000 cancel me', { returnImmediately: true }));
    const c = await client();
    const canceled = await c.cancelTask({ tenant: '', id: task.id, metadata: undefined }, within(3000));
    expect(stateName(canceled.status?.state)).toBe('CANCELED');
    expect(texts(canceled.status?.message?.parts)).toEqual(['Canceled on request.']);
    const again = await c.getTask({ tenant: '', id: task.id }, within(2000));
    expect(stateName(again.status?.state)).toBe('CANCELED');
  });

  // test/translate/sdk-cross.test.ts asserts the refusal a 0.3 agent's callers get instead.
  it.skipIf(opts.listTasks === false)(
    'lists tasks (skipped against a 0.3 agent behind translation: 0.3 has no ListTasks)',
    async () => {
      const task = asTask(await send('list me'));
      const list = await listAllTasks(await client());
      expect(list.tasks.map((t) => t.id)).toContain(task.id);
    },
  );

  it('raises TaskNotFoundError for an unknown task', async () => {
    const c = await client();
    await expect(c.getTask({ tenant: '', id: 'no-such-task' }, within(2000))).rejects.toBeInstanceOf(TaskNotFoundError);
  });

  const { pushWebhook } = opts;
  if (pushWebhook) {
    it('keeps push configs of a task: create, get, list, delete', async () => {
      await pushConfigRoundTrip(await client(), send, pushWebhook);
    });
  }

  if (opts.extendedCard) {
    it('serves the extended card', async () => {
      const card = await (await client()).getAgentCard(within(2000));
      expect(card.name).toBe(`${opts.peerName ?? 'a2a-js peer (SDK 1.3.0)'} (extended)`);
      // The SDK 1.3.0 peer's extended card adds a skill (the 0.3.14 peer's only renames the card).
      if (!opts.peerName) expect(card.skills.map((s) => s.id)).toContain('extended-only');
      expect(card.supportedInterfaces.length).toBeGreaterThan(0);
    });
  }
}

/**
 * The second chunk as a 0.3 client reports it. The peers send append:true,lastChunk:true on
 * every binding, but the 0.3 proto decoders (0.3.14 RestTransport; 1.3.0 LegacyRestTransport
 * and LegacyGrpcTransport, both via compat FromProto.taskArtifactUpdateEvent) drop `append`
 * and keep only `lastChunk`; only 0.3 JSON-RPC carries both.
 */
export const lastChunk = (transport: TransportName): string =>
  transport === 'JSONRPC' ? 'artifact+append+last' : 'artifact+last';

export type Event03 = Message | Task | TaskStatusUpdateEvent | TaskArtifactUpdateEvent;

/** "task:submitted", "status:working", "status:completed!" (! = final), "artifact+append+last". */
export function trace03(events: Event03[]): string[] {
  return events.map((ev) => {
    switch (ev.kind) {
      case 'task':
        return `task:${ev.status.state}`;
      case 'message':
        return 'message';
      case 'status-update':
        return `status:${ev.status.state}${ev.final ? '!' : ''}`;
      default:
        return artifactTrace(ev);
    }
  });
}

/** `result` as a 0.3 task (throws on a message). */
export function task03(result: Message | Task): Task {
  if (result.kind !== 'task') throw new Error(`expected a task, got ${result.kind}`);
  return result;
}

export interface ScenarioOptionsV03 {
  /** The transport the client uses (the REST decoders report the last chunk differently). */
  transport: TransportName;
  /** The agent serves the extended card of the SDK 0.3.14 peer. */
  extendedCard?: boolean;
  /** The agent behind the gateway is the other version's peer (test/translate): its card's name. */
  peerName?: string;
}

/** The 0.3 scenarios, driven by the SDK 0.3.14 client `client()` gives. */
export function sdkScenariosV03(client: () => Promise<ClientV03>, opts: ScenarioOptionsV03): void {
  const send = senderV03(client);

  it('answers a question with a direct message', async () => {
    const msg = await send('what is 6x7?');
    expect(msg.kind).toBe('message');
    expect(msg.kind === 'message' && msg.parts).toEqual([
      { kind: 'text', text: 'You asked: what is 6x7? Answer: 42.' },
    ]);
  });

  it('runs a default task to completed with a 2-chunk artifact', async () => {
    const task = task03(await send('process this'));
    expect(task.status.state).toBe('completed');
    expect(task.artifacts?.[0]?.parts).toEqual([
      { kind: 'text', text: 'chunk-1: processed "process this"; ' },
      { kind: 'text', text: 'chunk-2: done.' },
    ]);
  });

  it('parks "needs input" and completes on the follow-up', async () => {
    const first = task03(await send('needs input'));
    expect(first.status.state).toBe('input-required');
    const second = task03(await send('more', { taskId: first.id }));
    expect(second.id).toBe(first.id);
    expect(second.status.state).toBe('completed');
  });

  it('ends "fail" in failed and "reject" in rejected', async () => {
    expect(task03(await send('fail')).status.state).toBe('failed');
    expect(task03(await send('reject')).status.state).toBe('rejected');
  });

  it('returns at once with blocking:false and completes while tasks/get polls', async () => {
    const task = task03(await send('poll me', { blocking: false }));
    expect(['submitted', 'working']).toContain(task.status.state);
    const c = await client();
    const done = await pollUntil(
      () => c.getTask({ id: task.id }, within(2000)),
      (t) => t.status.state === 'completed',
      5000,
      'completion',
    );
    expect(done.id).toBe(task.id);
    expect(done.artifacts?.[0]?.parts).toHaveLength(2);
  });

  it('streams with final:true on the last event', async () => {
    expect(trace03(await streamV03(await client(), 'stream this'))).toEqual([
      'task:submitted',
      'status:working',
      'artifact',
      lastChunk(opts.transport),
      'status:completed!',
    ]);
  });

  it('resubscribes to a running task', async () => {
    const task = task03(await send('sleep:150 subscribe to me', { blocking: false }));
    const c = await client();
    const events = await collect(c.resubscribeTask({ id: task.id }, within(5000)), 5000, 'resubscribe');
    expect(events[0]?.kind).toBe('task');
    expect(trace03(events).at(-1)).toBe('status:completed!');
  });

  it('cancels a running task', async () => {
    const task = task03(await send('sleep:5000 cancel me', { blocking: false }));
    const canceled = await (await client()).cancelTask({ id: task.id }, within(3000));
    expect(canceled.status.state).toBe('canceled');
  });

  if (opts.extendedCard) {
    it('serves the extended card', async () => {
      const name = opts.peerName ?? 'a2a-js peer (SDK 0.3.14)';
      expect((await (await client()).getAgentCard(within(2000))).name).toBe(`${name} (extended)`);
    });
  }
}
