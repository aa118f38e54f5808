/**
 * The global inspection budget (issue #12 item 4): `inspection.maxBytes` bounds one exchange,
 * `inspection.budgetBytes` all of them together. With room for four full inspections, eight SSE
 * streams each stop inside a 40 KiB event (held by a full inspection, too long for a head-only
 * one): the first four are inspected in full, the last four head-only and marked `partial` with
 * a finding that names the budget. The bytes every client gets are the agent's, and the budget
 * is back to zero once the streams are over.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ServerResponse } from 'node:http';
import { request } from 'undici';
import { scriptedUpstream } from '../support/scripted-upstream.js';
import { startTestGateway } from '../support/gateway.js';
import type { Exchange } from '../../src/exchange/exchange.js';
import type { ExchangeRecord } from '../../src/exchange/record.js';
import { HEAD_ONLY_BYTES } from '../../src/inspect/budget.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

const MAX = 64 * 1024;
const BUDGET = 4 * MAX;
const STREAMS = 8;

const event = (doc: unknown) => `data: ${JSON.stringify({ jsonrpc: '2.0', id: 1, result: doc })}\n\n`;
const status = (taskId: string, state: string, pad = '') => ({
  statusUpdate: { taskId, contextId: 'c1', status: { state }, ...(pad ? { metadata: { pad } } : {}) },
});

/** What the agent sends on stream `n`: up to inside the long event, then (on release) the rest. */
function script(n: number) {
  const taskId = `t${n}`;
  const long = event(status(taskId, 'TASK_STATE_WORKING', 'x'.repeat(40 * 1024)));
  const head = event({ task: { id: taskId, contextId: 'c1', status: { state: 'TASK_STATE_SUBMITTED' } } });
  const before = head + long.slice(0, -2); // stops before the blank line that ends the long event
  const after = '\n\n' + event(status(taskId, 'TASK_STATE_COMPLETED'));
  return { taskId, before, after };
}

describe('global inspection budget', () => {
  it('inspects exchanges past the budget head-only, marks them partial, relays every byte, and returns to zero', async () => {
    const held: Array<{ res: ServerResponse; after: string }> = [];
    const upstream = await scriptedUpstream(async (req, res) => {
      let body = '';
      for await (const c of req) body += c;
      if (req.url!.includes('.well-known')) return void res.writeHead(404).end();
      const { before, after } = script(Number(JSON.parse(body).params.message.messageId));
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(before);
      held.push({ res, after });
    });
    cleanups.push(() => upstream.close());
    const records: ExchangeRecord[] = [];
    const gateway = await startTestGateway(
      { a: { url: upstream.url } },
      { inspection: { maxBytes: MAX, budgetBytes: BUDGET } },
      [{ name: 'test', onFinish: (ex: Exchange) => void records.push(ex.record) }],
    );
    cleanups.push(() => gateway.close());

    const bodies: Array<Promise<string>> = [];
    for (let n = 1; n <= STREAMS; n++) {
      const res = await request(`${gateway.url}/agents/a/a2a/jsonrpc`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0', accept: 'text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'SendStreamingMessage',
          params: { message: { messageId: String(n), role: 'ROLE_USER', parts: [{ text: 'go' }] } },
        }),
      });
      // Opened one after another: stream n starts only once stream n-1 is inside its long event.
      const { before } = script(n);
      let text = '';
      let reached!: () => void;
      const inside = new Promise<void>((r) => (reached = r));
      bodies.push(
        (async () => {
          for await (const chunk of res.body) {
            text += chunk.toString();
            if (text.length >= before.length) reached();
          }
          return text;
        })(),
      );
      await inside;
    }

    // Four full grants fill the budget; the other four got the head-only floor.
    expect(gateway.inspectionBudget!.inUse).toBe(BUDGET + 4 * HEAD_ONLY_BYTES);

    for (const { res, after } of held) res.end(after);
    const received = await Promise.all(bodies);
    for (let n = 1; n <= STREAMS; n++) {
      const { before, after } = script(n);
      expect(received[n - 1]).toBe(before + after); // byte for byte: inspection changes nothing
    }
    await expect.poll(() => records.length, { timeout: 2000 }).toBe(STREAMS);
    expect(gateway.inspectionBudget!.inUse).toBe(0);

    const byTask = new Map(records.map((r) => [r.a2a?.taskId, r]));
    for (let n = 1; n <= STREAMS; n++) {
      const record = byTask.get(`t${n}`)!;
      expect(record.a2a).toMatchObject({ kind: 'task', state: 'TASK_STATE_COMPLETED' });
      const partial = record.findings.find((f) => f.rule === 'gateway.inspect-partial');
      if (n <= 4) {
        expect(record.a2a!.partial).toBe(false);
        expect(partial).toBeUndefined();
        expect(record.a2a!.stream!.events.statusUpdate).toBe(2);
      } else {
        expect(record.a2a!.partial).toBe(true);
        expect(partial!.detail).toMatch(/global inspection budget/);
        expect(record.a2a!.stream!.events.statusUpdate).toBe(1); // the long event was skipped, not held
      }
    }
  });

  it('gives the reservation back when the client leaves mid-stream', async () => {
    const upstream = await scriptedUpstream(async (req, res) => {
      for await (const _ of req);
      if (req.url!.includes('.well-known')) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(script(1).before);
    });
    cleanups.push(() => upstream.close());
    let finished!: () => void;
    const done = new Promise<void>((r) => (finished = r));
    const gateway = await startTestGateway(
      { a: { url: upstream.url } },
      { inspection: { maxBytes: MAX, budgetBytes: BUDGET } },
      [{ name: 'test', onFinish: () => finished() }],
    );
    cleanups.push(() => gateway.close());
    const res = await request(`${gateway.url}/agents/a/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0', accept: 'text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'SendStreamingMessage',
        params: { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'go' }] } },
      }),
    });
    let got = 0;
    expect(res.statusCode).toBe(200);
    for await (const chunk of res.body) {
      got += chunk.length;
      if (got < script(1).before.length) continue;
      expect(gateway.inspectionBudget!.inUse).toBe(MAX); // held while the stream is open
      break; // the client leaves: the body is destroyed
    }
    await done;
    expect(gateway.inspectionBudget!.inUse).toBe(0);
  });
});
