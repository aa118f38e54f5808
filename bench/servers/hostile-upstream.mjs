// The agents of the hostile loads (bench/hostile.mjs), one node:http server; the first path
// segment picks the agent, so the gateway's agent URL is `http://127.0.0.1:PORT/<agent>`:
//
//   probe         SendMessage → the small direct Message (the probe's answer)
//   sink          reads the request body to its end, then the small Message (stalled uploads)
//   bigcard       its agent card is GB_BYTES of JSON (generated as it is sent, never held)
//   bigjson       SendStreamingMessage → 200 application/json, a GB_BYTES Task (not SSE);
//                 GetTask → a small completed Task (what the rescue asks next)
//   unterminated  SendStreamingMessage → an SSE stream whose one 1 MB event never ends (no blank
//                 line), held open until the client goes or 120 s pass
//
//   node bench/servers/hostile-upstream.mjs --port N [--bytes N]
//
// Exits when its stdin closes (the harness died) or on SIGTERM.
import http from 'node:http';
import { agentCard, filler, SMALL_MESSAGE_RESPONSE } from '../lib/payloads.mjs';
import { childArgs, serveUntilParentGoes } from '../lib/serve-child.mjs';

const args = childArgs('usage: hostile-upstream.mjs --port N [--bytes N]', { bytes: { type: 'string' } });
const { port } = args;
const GB_BYTES = Number(args.bytes ?? 1e9);
const EVENT_BYTES = 1024 * 1024;
const HOLD_MS = 120_000;
const base = `http://127.0.0.1:${port}`;
const CHUNK = Buffer.from(filler(1024 * 1024));

/** Write `head`, `fill` filler bytes and `tail`, honouring backpressure; then end (or not). */
function pump(res, head, fill, tail, { end = true } = {}) {
  res.write(head);
  let left = fill;
  const more = () => {
    while (left > 0 && !res.destroyed) {
      const n = Math.min(left, CHUNK.length);
      left -= n;
      if (!res.write(n === CHUNK.length ? CHUNK : CHUNK.subarray(0, n))) return void res.once('drain', more);
    }
    if (res.destroyed) return;
    if (end) res.end(tail);
    else res.write(tail);
  };
  more();
}

function sized(res, status, type, head, fill, tail) {
  const length = Buffer.byteLength(head) + fill + Buffer.byteLength(tail);
  res.writeHead(status, { 'content-type': type, 'content-length': length });
  pump(res, head, fill, tail);
}

function small(res, body) {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

function bigCard(res, agent) {
  const card = JSON.parse(agentCard(`${base}/${agent}`, agent));
  const [head, tail] = JSON.stringify({ ...card, description: '@FILL@' }).split('@FILL@');
  sized(res, 200, 'application/json', head, GB_BYTES - head.length - tail.length, tail);
}

const TASK = { id: 'b1f0c3a2-hostile-task', contextId: 'c0ffee00-hostile-context' };
const completedTask = (id) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    result: { task: { ...TASK, status: { state: 'TASK_STATE_COMPLETED' }, artifacts: [], history: [] } },
  });

function bigJson(res, id) {
  const [head, tail] = JSON.stringify({
    jsonrpc: '2.0',
    id,
    result: {
      task: {
        ...TASK,
        status: { state: 'TASK_STATE_WORKING' },
        artifacts: [{ artifactId: 'huge', parts: [{ text: '@FILL@', mediaType: 'text/plain' }] }],
      },
    },
  }).split('@FILL@');
  sized(res, 200, 'application/json', head, GB_BYTES - head.length - tail.length, tail);
}

function unterminated(res, id) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const head =
    `data: {"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"statusUpdate":{"taskId":"${TASK.id}",` +
    `"contextId":"${TASK.contextId}","status":{"state":"TASK_STATE_WORKING","message":{"messageId":"m1",` +
    `"role":"ROLE_AGENT","parts":[{"text":"`;
  pump(res, head, EVENT_BYTES - head.length, '', { end: false });
  const timer = setTimeout(() => res.destroy(), HOLD_MS);
  res.on('close', () => clearTimeout(timer));
}

/** The request's body (at most 1 MB kept), then `then(rpc)`; a bigger body is only counted. */
function readBody(req, then) {
  const chunks = [];
  let size = 0;
  req.on('data', (c) => {
    size += c.length;
    if (size <= 1024 * 1024) chunks.push(c);
  });
  req.on('end', () => {
    try {
      then(JSON.parse(Buffer.concat(chunks).toString('utf8')));
    } catch {
      then(null);
    }
  });
}

const server = http.createServer((req, res) => {
  const [, agent = '', ...rest] = (req.url ?? '/').split('?')[0].split('/');
  const sub = `/${rest.join('/')}`;
  if (req.method === 'GET' && sub.startsWith('/.well-known/')) {
    if (agent === 'bigcard') return bigCard(res, agent);
    return small(res, agentCard(`${base}/${agent}`, agent));
  }
  if (req.method !== 'POST') return void res.writeHead(404).end();
  readBody(req, (rpc) => {
    const id = rpc?.id ?? 1;
    if (agent === 'bigjson' && rpc?.method === 'SendStreamingMessage') return bigJson(res, id);
    if (agent === 'bigjson') return small(res, completedTask(id));
    if (agent === 'unterminated') return unterminated(res, id);
    return small(res, SMALL_MESSAGE_RESPONSE);
  });
});
server.keepAliveTimeout = 65_000;
server.requestTimeout = 0;
server.headersTimeout = 60_000;
server.maxConnections = 20_000;
serveUntilParentGoes(server, { port, name: 'hostile-upstream', url: base });
