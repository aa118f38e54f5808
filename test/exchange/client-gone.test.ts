/** A client that leaves mid-stream is recorded with the reason CLIENT_GONE, one of the closed set
 * every other record uses (issue 30 item 6: it read `ClientGone`, an Error class name). */
import { describe, expect, it } from 'vitest';
import type { ExchangeRecord } from '../../src/exchange/record.js';
import { scriptedUpstream } from '../support/scripted-upstream.js';
import { startTestGateway } from '../support/gateway.js';

const FIRST =
  'data: {"jsonrpc":"2.0","id":1,"result":{"task":{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_WORKING"}}}}\n\n';

describe('a client that leaves', () => {
  it('is recorded as client-gone with reason CLIENT_GONE', async () => {
    const upstream = await scriptedUpstream(async (req, res) => {
      for await (const _ of req);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(FIRST); // … and holds the stream open until the gateway cancels it
    });
    const records: ExchangeRecord[] = [];
    const gateway = await startTestGateway({ a: { url: upstream.url } }, {}, [
      { name: 'test', onFinish: (e) => void records.push(e.record) },
    ]);
    try {
      const client = new AbortController();
      const res = await fetch(`${gateway.url}/agents/a/rpc`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
        body: '{"jsonrpc":"2.0","id":1,"method":"SendStreamingMessage","params":{}}',
        signal: client.signal,
      });
      const reader = res.body!.getReader();
      await reader.read(); // the first event arrived: the stream is live
      client.abort();
      for (let i = 0; i < 100 && records.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
      expect(records[0]).toMatchObject({ outcome: 'client-gone', error: { reason: 'CLIENT_GONE' } });
    } finally {
      await gateway.close();
      await upstream.close();
    }
  });
});
