/**
 * A quiet SSE stream gets keepalive comments from the gateway, only between events; every event
 * byte stays as the agent sent it, and the SDK client still parses the stream.
 */
import { describe, expect, it } from 'vitest';
import { request } from 'undici';
import { scriptedUpstream } from '../support/scripted-upstream.js';
import { startTestGateway } from '../support/gateway.js';
import { startPeerV1 } from '../peers/peer-v1.js';
import { clientV1 } from '../peers/clients.js';
import { withDeadline } from '../peers/deadline.js';
import { STREAMED_TASK_V1, streamV1 } from '../peers/scenarios.js';
import { trace } from '../peers/inspect.js';
import { Writable } from 'node:stream';
import { pino } from 'pino';

const EVENT_1 =
  'data: {"jsonrpc":"2.0","id":1,"result":{"task":{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_WORKING"}}}}\n\n';
const EVENT_2 =
  'data: {"jsonrpc":"2.0","id":1,"result":{"statusUpdate":{"taskId":"t1","contextId":"c1","status":{"state":"TASK_STATE_COMPLETED"}}}}\n\n';

describe('SSE keepalive', () => {
  it('fills a 5 s quiet gap with comments between events, events byte-identical', async () => {
    const upstream = await scriptedUpstream(async (req, res) => {
      for await (const _ of req);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(EVENT_1);
      res.write('data: {"jsonrpc":"2.0","id":1,"result":{"statusUpdate":'); // an event begun …
      setTimeout(
        () => res.write('{"taskId":"t1","contextId":"c1","status":{"state":"TASK_STATE_WORKING"}}}}\n\n'),
        1500,
      ); // … and finished later
      setTimeout(() => res.end(EVENT_2), 5000);
    });
    const gateway = await startTestGateway({ quiet: { url: upstream.url, sse: { keepalive: '1s' } } });
    try {
      const res = await request(`${gateway.url}/agents/quiet/rpc`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
        body: '{"jsonrpc":"2.0","id":1,"method":"SendStreamingMessage","params":{}}',
      });
      const text = await res.body.text();
      const comments = text.match(/: keepalive\n\n/g) ?? [];
      expect(comments.length).toBeGreaterThanOrEqual(2);
      // Removing the comments leaves exactly the agent's bytes: none was put inside an event.
      const middle =
        'data: {"jsonrpc":"2.0","id":1,"result":{"statusUpdate":{"taskId":"t1","contextId":"c1","status":{"state":"TASK_STATE_WORKING"}}}}\n\n';
      expect(text.replace(/: keepalive\n\n/g, '')).toBe(EVENT_1 + middle + EVENT_2);
      // The first comment comes only after the half-sent event was finished.
      expect(text.indexOf(': keepalive')).toBeGreaterThan(text.indexOf(middle));
    } finally {
      await gateway.close();
      await upstream.close();
    }
  });

  it("counts the agent's comments and the gateway's keepalives apart, alike in the log and /exchanges", async () => {
    const upstream = await scriptedUpstream(async (req, res) => {
      for await (const _ of req);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(EVENT_1);
      res.write(': ping\n\n'); // the agent's own keepalive
      setTimeout(() => res.end(EVENT_2), 1500);
    });
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, new Writable({ write: (c, _e, done) => (lines.push(String(c)), done()) }));
    const gateway = await startTestGateway(
      { quiet: { url: upstream.url, sse: { keepalive: '300ms' } } },
      { log: { access: true } },
      [],
      logger,
    );
    try {
      const res = await request(`${gateway.url}/agents/quiet/rpc`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
        body: '{"jsonrpc":"2.0","id":1,"method":"SendStreamingMessage","params":{}}',
      });
      const added = ((await res.body.text()).match(/: keepalive\n\n/g) ?? []).length;
      expect(added).toBeGreaterThanOrEqual(1);
      const exchange = lines.map((l) => JSON.parse(l) as { msg: string }).find((l) => l.msg === 'exchange');
      expect(exchange).toMatchObject({ events: { agentKeepalives: 1, gatewayKeepalives: added } });
      const recorded = (await (await fetch(`${gateway.adminUrl}/exchanges?agent=quiet`)).json()) as {
        exchanges: unknown[];
      };
      expect(recorded.exchanges[0]).toMatchObject({
        gatewayKeepalives: added,
        a2a: { stream: { agentKeepalives: 1 } },
      });
    } finally {
      await gateway.close();
      await upstream.close();
    }
  });

  it('keeps the SDK client parsing a stream with a quiet gap', async () => {
    const peer = await startPeerV1();
    const gateway = await startTestGateway({ a: { url: peer.url, sse: { keepalive: '200ms' } } });
    try {
      const client = await withDeadline(clientV1(`${gateway.url}/agents/a/`, { transport: 'JSONRPC' }), 5000, 'card');
      expect(trace(await streamV1(client, 'sleep:1200 quiet stream', 10_000))).toEqual(STREAMED_TASK_V1());
    } finally {
      await gateway.close();
      await peer.close();
    }
  });

  it('writes nothing into unary responses', async () => {
    const upstream = await scriptedUpstream(async (req, res) => {
      for await (const _ of req);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"jsonrpc":"2.0","id":1,');
      setTimeout(
        () => res.end('"result":{"message":{"messageId":"m","role":"ROLE_AGENT","parts":[{"text":"ok"}]}}}'),
        700,
      );
    });
    const gateway = await startTestGateway({ slow: { url: upstream.url, sse: { keepalive: '100ms' } } });
    try {
      const res = await request(`${gateway.url}/agents/slow/rpc`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{}}',
      });
      expect(JSON.parse(await res.body.text())).toMatchObject({ result: { message: { messageId: 'm' } } });
    } finally {
      await gateway.close();
      await upstream.close();
    }
  });
});
