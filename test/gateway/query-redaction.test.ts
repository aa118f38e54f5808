/**
 * Query strings reach the agent as sent, but records (`GET /exchanges`) and the access log show
 * only their parameter names by default: an `api_key=` in a query must not be shown verbatim.
 * `log.queryStrings: keep` keeps them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { scriptedUpstream } from '../support/scripted-upstream.js';
import { startTestGateway } from '../support/gateway.js';

const seen: string[] = [];
let upstream: Awaited<ReturnType<typeof scriptedUpstream>>;
beforeAll(async () => {
  upstream = await scriptedUpstream((req, res) => {
    if (!req.url!.includes('/.well-known/')) seen.push(req.url!);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
});
afterAll(() => upstream.close());

async function exchangeOf(queryStrings?: 'keep') {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  const log = { level: 'info', ...(queryStrings ? { queryStrings } : {}) };
  const gateway = await startTestGateway({ a: { url: upstream.url } }, { log }, [], pino({ level: 'info' }, sink));
  try {
    await (await fetch(`${gateway.url}/agents/a/tasks?api_key=s3cret&historyLength=2&flag`)).text();
    const records = (await (await fetch(`${gateway.adminUrl}/exchanges?agent=a`)).json()) as any;
    return {
      path: records.exchanges?.[0]?.path ?? records[0]?.path,
      logged: lines.find((l) => l['msg'] === 'exchange'),
    };
  } finally {
    await gateway.close();
  }
}

describe('query strings', () => {
  it('go to the agent as sent, and are redacted in records and the access log', async () => {
    const { path, logged } = await exchangeOf();
    expect(seen.at(-1)).toBe('/tasks?api_key=s3cret&historyLength=2&flag');
    expect(path).toBe('/tasks?api_key=…&historyLength=…&flag');
    expect(logged?.['path']).toBe('/tasks?api_key=…&historyLength=…&flag');
    expect(JSON.stringify(logged)).not.toContain('s3cret');
  });

  it('are kept with log.queryStrings: keep', async () => {
    const { path } = await exchangeOf('keep');
    expect(path).toBe('/tasks?api_key=s3cret&historyLength=2&flag');
  });
});
