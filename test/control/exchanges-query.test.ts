/** `GET /exchanges` refuses query parameters it would otherwise ignore (issue 30 item 6): a
 * mistyped filter must not come back as every exchange. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readExchangesQuery } from '../../src/control/exchanges-query.js';
import type { RunningGateway } from '../../src/gateway/gateway.js';
import { startPeerV1 } from '../peers/peer-v1.js';
import type { Peer } from '../peers/peer-common.js';
import { startTestGateway } from '../support/gateway.js';
import { sendJsonRpc } from '../idempotency/support/rpc.js';

describe('readExchangesQuery', () => {
  it('reads the filters and the limit, with 50 when no limit is given', () => {
    expect(readExchangesQuery({ agent: ['a'], taskId: ['t'], limit: ['7'] })).toEqual({
      ok: true,
      query: { agent: 'a', taskId: 't', limit: 7 },
    });
    expect(readExchangesQuery({})).toEqual({ ok: true, query: { limit: 50 } });
  });

  it.each([
    [{ taskid: ['t'] }, /unknown query parameter 'taskid'/],
    [{ agent: ['a', 'b'] }, /'agent' given 2 times/],
    [{ messageId: [''] }, /'messageId' is empty/],
    [{ limit: ['ten'] }, /limit must be a whole number from 1 up/],
    [{ limit: ['0'] }, /from 1 up/],
    [{ limit: ['-3'] }, /from 1 up/],
    [{ limit: ['1e2'] }, /from 1 up/],
    [{ limit: [' 5'] }, /from 1 up/],
  ])('refuses %j', (params, message) => {
    const read = readExchangesQuery(params);
    expect(read.ok).toBe(false);
    expect(!read.ok && read.message).toMatch(message);
  });
});

describe('GET /exchanges over the admin listener', () => {
  let peer: Peer;
  let gateway: RunningGateway;
  beforeAll(async () => {
    peer = await startPeerV1();
    gateway = await startTestGateway({ a: { url: peer.url } }, { inspection: { recent: 20 } });
    await sendJsonRpc(`${gateway.url}/agents/a`, 'hello', { messageId: 'm-q' });
  });
  afterAll(async () => {
    await gateway?.close();
    await peer?.close();
  });

  it.each(['taskid=x', 'limit=ten', 'limit=0', 'agent=a&agent=b'])('answers 400 to ?%s', async (qs) => {
    const res = await fetch(`${gateway.adminUrl}/exchanges?${qs}`);
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { code: number; status: string; message: string } };
    expect(body.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
  });

  it('still answers a well-formed query', async () => {
    const res = await fetch(`${gateway.adminUrl}/exchanges?agent=a&messageId=m-q&limit=20`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { exchanges: { agent: string }[] };
    expect(body.exchanges.length).toBeGreaterThan(0);
  });
});
