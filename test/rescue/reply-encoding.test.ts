/**
 * The timeout rescue reads the agent's replies itself, so it asks for them uncompressed
 * (`Accept-Encoding: identity`, src/bindings/http/rescue-calls.ts) whatever the caller accepts:
 * an agent that compresses what the client allows — express's `compression` middleware, here a
 * scripted agent doing the same — would otherwise answer the rescue in gzip it cannot read, and
 * the blocking send would go through unrescued.
 */
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { scriptedUpstream } from '../support/scripted-upstream.js';
import { rescuedSend } from './support/rescued-send.js';

const task = (state: string) => ({ id: 't-gz', contextId: 'c-gz', status: { state } });

/** SendMessage → WORKING, GetTask → COMPLETED; gzipped whenever Accept-Encoding allows it. */
function compressingAgent(seen: string[]) {
  return scriptedUpstream(async (req, res) => {
    let raw = '';
    for await (const chunk of req) raw += String(chunk);
    if (req.method === 'GET') return void res.writeHead(404).end();
    const accepts = String(req.headers['accept-encoding'] ?? '');
    seen.push(accepts);
    const { id, method } = JSON.parse(raw) as { id: unknown; method: string };
    const result = method === 'GetTask' ? task('TASK_STATE_COMPLETED') : { task: task('TASK_STATE_WORKING') };
    const body = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id, result }));
    if (!accepts.includes('gzip')) return void res.writeHead(200, { 'content-type': 'application/json' }).end(body);
    res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' }).end(gzipSync(body));
  });
}

describe('the rescue and a compressing agent', () => {
  it('asks for identity on its calls, so it reads the task and answers the caller with it', async () => {
    const seen: string[] = [];
    const upstream = await compressingAgent(seen);
    try {
      const { headers, doc } = await rescuedSend(upstream.url, { 'accept-encoding': 'gzip, br' });
      expect(headers['a2a-gateway-rescue']).toBe('settled');
      expect(headers['content-encoding']).toBeUndefined();
      expect(doc.result).toMatchObject({ task: { id: 't-gz', status: { state: 'TASK_STATE_COMPLETED' } } });
      expect(seen.length).toBeGreaterThanOrEqual(2); // the non-blocking send and at least one GetTask
      expect(new Set(seen)).toEqual(new Set(['identity']));
    } finally {
      await upstream.close();
    }
  });
});
