/**
 * A cut answer never reaches the client as a complete one. For every framing the agent may use
 * (Content-Length, chunked, close-delimited) × unary or SSE × the agent's connection ending by
 * RST or FIN part-way: the client sees a cut connection, or (SSE, where an event can stand
 * whole) the protocol's error event. Only a FIN that ends a close-delimited body is a complete
 * answer (RFC 9112 §6.3) — unless it falls inside an SSE event, which betrays the cut.
 * The agent is a raw TCP server that writes exactly the scripted bytes and then ends as told.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { startTestGateway } from '../support/gateway.js';
import type { RunningGateway } from '../../src/gateway/gateway.js';

type Framing = 'length' | 'chunked' | 'close';
type End = 'fin' | 'rst';

const EVENT =
  'data: {"jsonrpc":"2.0","id":1,"result":{"task":{"id":"t1","status":{"state":"TASK_STATE_WORKING"}}}}\n\n';
const UNARY = '{"jsonrpc":"2.0","id":1,"result":{"task":{"id":"t1","status":{"state":"TASK_STATE_WORKING"}}}}';

/** What the agent sends before it ends: the start of a longer body (or all of a close-delimited one). */
function response(framing: Framing, sse: boolean, tail: string): string {
  const type = sse ? 'text/event-stream' : 'application/json';
  const sent = sse ? EVENT + tail : UNARY.slice(0, 40) + tail;
  const head = `HTTP/1.1 200 OK\r\ncontent-type: ${type}\r\n`;
  if (framing === 'length') return `${head}content-length: ${sent.length + 500}\r\n\r\n${sent}`;
  if (framing === 'chunked')
    return `${head}transfer-encoding: chunked\r\n\r\n${sent.length.toString(16)}\r\n${sent}\r\n`;
  return `${head}connection: close\r\n\r\n${sent}`;
}

let agent: Server;
let agentUrl: string;
let gateway: RunningGateway;
/** The next answer the agent gives: its bytes and how it ends. */
let script: { bytes: string; end: End } = { bytes: '', end: 'fin' };

beforeAll(async () => {
  agent = createServer((socket: Socket) => {
    socket.once('data', (head) => {
      if (head.toString().includes('/.well-known/'))
        return void socket.end('HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n');
      const { bytes, end } = script;
      socket.write(bytes, () => setTimeout(() => (end === 'rst' ? socket.resetAndDestroy() : socket.end()), 30));
    });
    socket.on('error', () => {});
  });
  await new Promise<void>((r) => agent.listen(0, '127.0.0.1', r));
  agentUrl = `http://127.0.0.1:${(agent.address() as AddressInfo).port}`;
  gateway = await startTestGateway({ a: { url: agentUrl } });
});
afterAll(async () => {
  await gateway.close();
  await new Promise((r) => agent.close(r));
});

/** Whether the client got a complete answer, and its bytes. */
async function through(bytes: string, end: End): Promise<{ complete: boolean; body: string }> {
  script = { bytes, end };
  const res = await request(`${gateway.url}/agents/a/`, {
    method: 'POST',
    body: '{}',
    headers: { 'content-type': 'application/json' },
  });
  let body = '';
  try {
    for await (const chunk of res.body) body += chunk;
    return { complete: true, body };
  } catch {
    return { complete: false, body };
  }
}

/** The request is `{}` (REST): the REST error event (wire-reference §1.2). */
const errorEvent = /event: error\ndata: \{"error":\{"code":502,.*"reason":"UPSTREAM_RESET"/;
const FRAMINGS: Framing[] = ['length', 'chunked', 'close'];
const ENDS: End[] = ['fin', 'rst'];

describe.each(FRAMINGS)('an agent answer framed by %s', (framing) => {
  it.each(ENDS)(
    'cut mid-body (unary) by %s never looks complete, but a FIN ending a close-delimited body is its end',
    async (end) => {
      const got = await through(response(framing, false, ''), end);
      expect(got.complete).toBe(framing === 'close' && end === 'fin');
    },
  );

  it.each(ENDS)('cut inside an SSE event line (%s) is cut for the client too', async (end) => {
    const got = await through(response(framing, true, 'data: {"jsonrpc":"2.0","id":1,"res'), end);
    expect(got.complete).toBe(false);
    expect(got.body.startsWith(EVENT)).toBe(true);
  });

  it.each(ENDS)(
    'cut between two SSE events (%s) ends with the error event, or is cut where a length was promised',
    async (end) => {
      const got = await through(response(framing, true, ''), end);
      // A promised Content-Length leaves no room for an error event: the connection is cut.
      expect(got.complete).toBe(framing !== 'length');
      expect(got.body.startsWith(EVENT)).toBe(true);
      if (framing === 'close' && end === 'fin')
        expect(got.body).toBe(EVENT); // a clean end
      else if (framing !== 'length') expect(got.body).toMatch(errorEvent);
    },
  );
});

it('a close-delimited SSE stream that stops after a whole line of an unfinished event gets the error event', async () => {
  const got = await through(response('close', true, 'event: message\n'), 'fin');
  expect(got.complete).toBe(true);
  expect(got.body.startsWith(`${EVENT}event: message\n\n`)).toBe(true);
  expect(got.body).toMatch(errorEvent);
});
