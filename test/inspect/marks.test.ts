/**
 * The inspector's marks (record.a2a.marks, for the console's task timeline): when each state and
 * artifact update of a stream went by — several events in one chunk each get their mark — bounded
 * per exchange, and the task's story gets every state of the stream in order, shown.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { scriptedUpstream } from '../support/scripted-upstream.js';
import { startTestGateway } from '../support/gateway.js';
import type { Exchange } from '../../src/exchange/exchange.js';
import type { ExchangeRecord } from '../../src/exchange/record.js';
import type { RunningGateway } from '../../src/gateway/gateway.js';
import type { TaskStory } from '../../src/tasks/story.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

const event = (result: unknown) => `data: ${JSON.stringify({ jsonrpc: '2.0', id: 1, result })}\n\n`;
const status = (state: string) => event({ statusUpdate: { taskId: 't1', contextId: 'c1', status: { state } } });
const artifact = (i: number) =>
  event({
    artifactUpdate: { taskId: 't1', contextId: 'c1', artifact: { artifactId: `a${i}`, parts: [{ text: 'x' }] } },
  });

/** A stream of `body` written in one piece, through a gateway; its record and the task's story. */
async function streamed(body: string): Promise<{ record: ExchangeRecord; gateway: RunningGateway }> {
  const upstream = await scriptedUpstream(async (req, res) => {
    for await (const _ of req);
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(body);
  });
  cleanups.push(upstream.close);
  const records: ExchangeRecord[] = [];
  const gateway = await startTestGateway({ a: { url: upstream.url } }, {}, [
    { onFinish: (ex: Exchange) => void records.push(ex.record) },
  ]);
  cleanups.push(() => gateway.close());
  const res = await request(`${gateway.url}/agents/a/rpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', accept: 'text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendStreamingMessage',
      params: { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'x' }] } },
    }),
  });
  await res.body.text();
  while (records.length === 0) await new Promise((r) => setTimeout(r, 5));
  return { record: records[0]!, gateway };
}

async function storyOf(gateway: RunningGateway, states: number): Promise<TaskStory> {
  for (;;) {
    const story = await gateway.tracker.store.get('a', 't1');
    if (story && story.states.length >= states) return story;
    await new Promise((r) => setTimeout(r, 5));
  }
}

const task = event({ task: { id: 't1', contextId: 'c1', status: { state: 'TASK_STATE_SUBMITTED' } } });

describe('stream marks', () => {
  it('marks every state change of one chunk, and the story records each, in order, shown', async () => {
    const body =
      task + status('TASK_STATE_WORKING') + artifact(1) + status('TASK_STATE_WORKING') + status('TASK_STATE_COMPLETED');
    const { record, gateway } = await streamed(body);
    const marks = record.a2a!.marks!;
    expect(marks.states.map((m) => m.state)).toEqual([
      'TASK_STATE_SUBMITTED',
      'TASK_STATE_WORKING', // the repeated WORKING is one mark
      'TASK_STATE_COMPLETED',
    ]);
    expect(marks.artifactsAt).toHaveLength(1);
    const story = await storyOf(gateway, 3);
    expect(story.states.map((v) => [v.state, v.shown, v.at])).toEqual(marks.states.map((m) => [m.state, true, m.at]));
  });

  it('keeps at most 32 marks of each kind, and the last state still reaches the story', async () => {
    let body = task;
    for (let i = 0; i < 40; i++)
      body += status(i % 2 ? 'TASK_STATE_WORKING' : 'TASK_STATE_INPUT_REQUIRED') + artifact(i);
    body += status('TASK_STATE_COMPLETED');
    const { record, gateway } = await streamed(body);
    const marks = record.a2a!.marks!;
    expect(marks.states).toHaveLength(32);
    expect(marks.artifactsAt).toHaveLength(32);
    expect(record.a2a!.state).toBe('TASK_STATE_COMPLETED');
    const story = await storyOf(gateway, 33);
    expect(story.states.at(-1)).toMatchObject({ state: 'TASK_STATE_COMPLETED', shown: true });
  });
});
