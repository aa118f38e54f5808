/** `inspection.enabled: false`: a plain proxy — traffic and errors as usual, no A2A facts; the
 * timeout rescue still recognises its sends on its own. */
import { describe, expect, it } from 'vitest';
import { startPeerV1 } from '../peers/peer-v1.js';
import { startTestGateway } from '../support/gateway.js';
import type { Exchange } from '../../src/exchange/exchange.js';
import type { ExchangeRecord } from '../../src/exchange/record.js';

const send = (text: string) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id: 4,
    method: 'SendMessage',
    params: { message: { messageId: `m-${text}`, role: 'ROLE_USER', parts: [{ text }] } },
  });

describe('inspection off', () => {
  it('forwards, records no A2A facts, and still rescues blocking sends', async () => {
    const peer = await startPeerV1({ slowMs: 3000 });
    const records: ExchangeRecord[] = [];
    const gateway = await startTestGateway(
      { a: { url: peer.url, timeoutRescue: { enabled: true, clientTimeout: '1500ms', margin: '500ms' } } },
      { inspection: { enabled: false } },
      [{ onFinish: (ex: Exchange) => void records.push(ex.record) }],
    );
    try {
      const post = (text: string) =>
        fetch(`${gateway.url}/agents/a/a2a/jsonrpc`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
          body: send(text),
        });
      const question = await post('why?');
      expect(((await question.json()) as any).result.message).toBeDefined();
      expect(records.at(-1)!.a2a).toBeUndefined();
      expect(records.at(-1)!.findings).toEqual([]);
      const slow = await post('slow job');
      expect(slow.headers.get('a2a-gateway-rescue')).toBe('deadline');
      expect(((await slow.json()) as any).result.task.status.state).toBe('TASK_STATE_WORKING');
    } finally {
      await gateway.close();
      await peer.close();
    }
  });
});
