/** The access log's access-control fields (issue #13): who called and what was refused. */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { accessLog } from '../../src/telemetry/access-log.js';
import { startPeerV1 } from '../peers/peer-v1.js';
import { startTestGateway } from '../support/gateway.js';
import { facts, fakeExchange, record } from './support/records.js';

const memoryLogger = (lines: string[]) =>
  pino({ level: 'info' }, new Writable({ write: (chunk, _e, done) => (lines.push(String(chunk)), done()) }));

/** The access log's lines for the given records, parsed. */
function logged(...records: Parameters<typeof record>[0][]): Array<Record<string, unknown>> {
  const lines: string[] = [];
  const log = pino(
    { level: 'info' },
    new Writable({ write: (chunk, _e, done) => (lines.push(String(chunk)), done()) }),
  );
  const observer = accessLog(log);
  for (const r of records) observer.onFinish!(fakeExchange(record(r)));
  return lines.map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('access log and access control', () => {
  it("names the caller's principal", () => {
    const [line] = logged({ a2a: facts(), access: { principal: 'alice@example.com' } });
    expect(line).toMatchObject({ msg: 'exchange', agent: 'reviewer', principal: 'alice@example.com' });
    for (const key of ['denied', 'rateLimited', 'pushRefused']) expect(line, key).not.toHaveProperty(key);
  });

  it('says why a call was refused: denial, rate limit, push webhook', () => {
    const [denied, limited, push] = logged(
      {
        status: 401,
        outcome: 'gateway-error',
        error: { reason: 'UNAUTHENTICATED', message: 'the token has expired' },
        access: { denied: 'expired' },
      },
      { status: 429, access: { principal: 'bob', rateLimited: true } },
      { status: 400, access: { principal: 'bob', pushRefused: 'push-url-resolves-private' } },
    );
    expect(denied).toMatchObject({ denied: 'expired', status: 401, error: { reason: 'UNAUTHENTICATED' } });
    expect(denied).not.toHaveProperty('principal');
    expect(limited).toMatchObject({ principal: 'bob', rateLimited: true });
    expect(push).toMatchObject({ principal: 'bob', pushRefused: 'push-url-resolves-private' });
  });

  it('names the replica, and what idempotent sends and stream resume did', () => {
    const [fleet, plain] = logged(
      { a2a: facts(), replica: 'http://10.0.1.12:9101', idempotency: { outcome: 'replayed', source: 'messageId' } },
      { a2a: facts(), resume: 'continued', translation: { caller: '0.3', agent: '1.0', outcome: 'refused' } },
    );
    expect(fleet).toMatchObject({ replica: 'http://10.0.1.12:9101', idempotency: 'replayed' });
    expect(fleet).not.toHaveProperty('resume');
    expect(plain).toMatchObject({
      resume: 'continued',
      translation: { caller: '0.3', agent: '1.0', outcome: 'refused' },
    });
    expect(fleet).not.toHaveProperty('translation');
    for (const key of ['replica', 'idempotency']) expect(plain, key).not.toHaveProperty(key);
  });

  it('has none of these keys when access control took no part', () => {
    const [line] = logged({ a2a: facts() });
    for (const key of ['principal', 'denied', 'rateLimited', 'pushRefused']) expect(line, key).not.toHaveProperty(key);
  });

  it('a gateway with auth logs who called, and why a call was refused', async () => {
    const peer = await startPeerV1();
    const lines: string[] = [];
    const gateway = await startTestGateway(
      { a: { url: peer.url } },
      { auth: { apiKeys: { planner: { key: 'planner-key-0123456789' } } } },
      [],
      memoryLogger(lines),
    );
    try {
      const calls: Record<string, string>[] = [{ 'x-api-key': 'planner-key-0123456789' }, {}];
      for (const credentials of calls) {
        const body = JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'SendMessage',
          params: { message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'what is 6x7?' }] } },
        });
        await (
          await fetch(`${gateway.url}/agents/a/a2a/jsonrpc`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...credentials },
            body,
            signal: AbortSignal.timeout(5000),
          })
        ).text();
      }
    } finally {
      await gateway.close();
      await peer.close();
    }
    const exchanges = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l['msg'] === 'exchange');
    expect(exchanges).toHaveLength(2);
    expect(exchanges[0]).toMatchObject({ principal: 'planner', status: 200, kind: 'message' });
    expect(exchanges[0]).not.toHaveProperty('denied');
    expect(exchanges[1]).toMatchObject({ denied: 'missing', status: 401, error: { reason: 'UNAUTHENTICATED' } });
    expect(exchanges[1]).not.toHaveProperty('principal');
  });
});
