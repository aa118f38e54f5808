/** The access log contract: one JSON line per exchange with the documented keys; `log.access:
 * false` turns it off. */
import { describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { startPeerV1 } from '../peers/peer-v1.js';
import { parseConfig } from '../../src/config/load.js';
import { startGateway } from '../../src/gateway/gateway.js';

async function run(logConfig: Record<string, unknown>): Promise<Array<Record<string, unknown>>> {
  const peer = await startPeerV1();
  const lines: string[] = [];
  const logger = pino(
    { level: 'info' },
    new Writable({ write: (chunk, _e, done) => (lines.push(String(chunk)), done()) }),
  );
  const config = parseConfig(
    JSON.stringify({
      listen: { port: 0 },
      admin: { listen: { port: 0 } },
      log: logConfig,
      agents: { a: { url: peer.url } },
    }),
    'test',
    {},
  );
  const gateway = await startGateway(config, { logger });
  try {
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: { message: { messageId: 'm-log', role: 'ROLE_USER', parts: [{ text: 'process this' }] } },
    });
    await (
      await fetch(`${gateway.url}/agents/a/a2a/jsonrpc`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
        body,
      })
    ).text();
  } finally {
    await gateway.close();
    await peer.close();
  }
  return lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l['msg'] === 'exchange');
}

describe('access log', () => {
  it('writes one line per exchange with the contract keys', async () => {
    const [line, ...rest] = await run({});
    expect(rest).toEqual([]);
    for (const key of [
      'agent',
      'method',
      'binding',
      'version',
      'kind',
      'taskId',
      'contextId',
      'state',
      'status',
      'durationMs',
      'findings',
    ])
      expect(line, key).toHaveProperty(key);
    expect(line).toMatchObject({
      agent: 'a',
      method: 'SendMessage',
      binding: 'jsonrpc',
      version: '1.0',
      kind: 'task',
      state: 'TASK_STATE_COMPLETED',
      status: 200,
      messageId: 'm-log',
    });
  });

  it('is off with log.access: false', async () => {
    expect(await run({ access: false })).toEqual([]);
  });
});
