// SSE upstream for the streaming scenarios: a small node:http server that answers
// SendStreamingMessage with a stream whose size and cadence come from the request
// (params.metadata.bench). Every event carries the time it was written, as
// metadata.sentMono = CLOCK_MONOTONIC in ms (process.hrtime, the same clock in every process on
// the machine), so the client can compute the delay each event picked up on its way.
//
//   node bench/servers/sse-upstream.mjs --port N
//
// Stream shape (A2A 1.0 JSON-RPC): a `task` (SUBMITTED) first, then `statusUpdate` (WORKING)
// or `artifactUpdate` events padded to `eventBytes`, then a final `statusUpdate` (COMPLETED).
// Modes: burst (as fast as the socket takes them, honouring backpressure), paced (`rate`
// events/s), interval (one event every `intervalMs`, first one at a random phase).
// Exits when its stdin closes (the harness died) or on SIGTERM.
import http from 'node:http';
import { agentCard } from '../lib/payloads.mjs';
import { serveUntilParentGoes } from '../lib/serve-child.mjs';

const args = process.argv.slice(2);
const port = Number(args[args.indexOf('--port') + 1]);
if (!port) {
  console.error('usage: sse-upstream.mjs --port N');
  process.exit(2);
}
const base = `http://127.0.0.1:${port}`;
const card = agentCard(base, 'sse');

const TASK_ID = '44613eb1-1bae-47be-9266-fc61120b565f';
const CONTEXT_ID = 'eb787aca-97f9-4b1e-85cf-4a93124511c2';
const LIMITS = { events: 1_000_000, eventBytes: 16 * 1024 * 1024, streamSeconds: 600 };

const monoMs = () => Number(process.hrtime.bigint() / 1000n) / 1000;

const padCache = new Map();
function pad(n) {
  if (n <= 0) return '';
  let p = padCache.get(n);
  if (!p) {
    p = 'x'.repeat(n);
    padCache.set(n, p);
  }
  return p;
}

/**
 * Build the frame of one event as {head, tail}: the head is a short template holding the
 * per-event fields (@SEQ@, @MONO@, @TS@), the tail (padding included, possibly megabytes) is
 * built once per stream and reused.
 */
function frameParts(id, kind, state, eventBytes) {
  const pre = `data: {"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"${kind}":{`;
  const meta = '"metadata":{"seq":@SEQ@,"sentMono":@MONO@}';
  const msg = (text) =>
    `"message":{"messageId":"6117a51c-73de-4c4d-92f7-147e86da31a8","contextId":"${CONTEXT_ID}","taskId":"${TASK_ID}","role":"ROLE_AGENT","parts":[{"text":"${text}","mediaType":"text/plain"}]}`;
  let head;
  let tail;
  if (kind === 'task') {
    head = `${pre}"id":"${TASK_ID}","contextId":"${CONTEXT_ID}",${meta},"status":{"state":"${state}","timestamp":"@TS@"`;
    tail = '},"history":[]}}}';
  } else if (kind === 'artifactUpdate') {
    head = `${pre}"taskId":"${TASK_ID}","contextId":"${CONTEXT_ID}",${meta}`;
    tail =
      ',"artifact":{"artifactId":"bench-artifact","name":"bench.txt","parts":[{"text":"@PAD@","mediaType":"text/plain"}]},"append":true,"lastChunk":false}}}';
  } else {
    head = `${pre}"taskId":"${TASK_ID}","contextId":"${CONTEXT_ID}",${meta},"status":{"state":"${state}","timestamp":"@TS@"`;
    tail = `,${msg('@PAD@')}}}}}`;
  }
  tail += '\n\n';
  // head placeholders expand by ~ +5 (seq) +14 (mono) +20 (ts); aim the whole frame at eventBytes.
  const fixed = head.length + tail.length - 5 + 30;
  tail = tail.replace('@PAD@', pad(Math.max(0, eventBytes - fixed)));
  return { head, tail };
}

function handleStream(req, res, rpc) {
  const b = rpc?.params?.metadata?.bench ?? {};
  const events = Math.min(Math.max(2, Number(b.events ?? 10)), LIMITS.events);
  const eventBytes = Math.min(Math.max(0, Number(b.eventBytes ?? 300)), LIMITS.eventBytes);
  const mode = b.mode ?? 'burst';
  const rate = Number(b.rate ?? 1000);
  const intervalMs = Number(b.intervalMs ?? 1000);
  const midKind = b.kind === 'artifact' ? 'artifactUpdate' : 'statusUpdate';
  const id = rpc?.id ?? 1;

  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    'x-accel-buffering': 'no',
  });
  res.flushHeaders();

  const parts = {
    first: frameParts(id, 'task', 'TASK_STATE_SUBMITTED', Math.min(eventBytes, 400)),
    mid: frameParts(id, midKind, 'TASK_STATE_WORKING', eventBytes),
    last: frameParts(id, 'statusUpdate', 'TASK_STATE_COMPLETED', Math.min(eventBytes, 400)),
  };
  // Large tails go out as Buffers built once; the timestamped head is tiny.
  for (const p of Object.values(parts)) {
    if (p.tail.length > 65536) p.tailBuf = Buffer.from(p.tail);
  }

  let seq = 0;
  let closed = false;
  let timer = null;
  const deadline = setTimeout(() => res.destroy(), LIMITS.streamSeconds * 1000);
  res.on('close', () => {
    closed = true;
    clearTimeout(deadline);
    if (timer) clearTimeout(timer);
  });

  /** Write event number `seq`; returns res.write's backpressure flag. */
  function writeOne() {
    const p = seq === 0 ? parts.first : seq === events - 1 ? parts.last : parts.mid;
    const head = p.head
      .replace('@SEQ@', String(seq))
      .replace('@TS@', new Date().toISOString())
      .replace('@MONO@', monoMs().toFixed(3));
    let ok;
    if (p.tailBuf) {
      res.write(head);
      ok = res.write(p.tailBuf);
    } else {
      ok = res.write(head + p.tail);
    }
    seq++;
    if (seq >= events) {
      res.end();
      clearTimeout(deadline);
    }
    return ok;
  }

  if (mode === 'burst') {
    // Events go out in corked batches (one writev per ~16 KB) until the socket pushes back, so
    // the upstream itself costs little and the path under test is what limits the rate.
    const pump = () => {
      res.cork();
      try {
        while (!closed && seq < events) {
          if (!writeOne()) {
            res.once('drain', pump);
            return;
          }
        }
      } finally {
        res.uncork();
      }
    };
    pump();
  } else if (mode === 'paced') {
    const start = monoMs();
    const tick = () => {
      timer = null;
      if (closed || seq >= events) return;
      const due = Math.min(events, Math.floor(((monoMs() - start) * rate) / 1000) + 1);
      while (!closed && seq < due) writeOne();
      if (!closed && seq < events) timer = setTimeout(tick, 1);
    };
    tick();
  } else {
    // interval: the task event now, then one event every intervalMs from a random phase.
    writeOne();
    const next = (delay) => {
      timer = setTimeout(() => {
        timer = null;
        if (closed || seq >= events) return;
        writeOne();
        if (seq < events) next(intervalMs);
      }, delay);
    };
    next(Math.random() * intervalMs);
  }
}

const server = http.createServer((req, res) => {
  if (req.method === 'GET' && (req.url === '/.well-known/agent-card.json' || req.url === '/.well-known/agent.json')) {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(card) });
    res.end(card);
    return;
  }
  if (req.method === 'POST' && req.url === '/a2a/jsonrpc') {
    const chunks = [];
    let size = 0;
    req.on('data', (c) => {
      size += c.length;
      if (size > 1024 * 1024) req.destroy();
      else chunks.push(c);
    });
    req.on('end', () => {
      let rpc = null;
      try {
        rpc = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}');
        return;
      }
      handleStream(req, res, rpc);
    });
    return;
  }
  res.writeHead(404, { 'content-type': 'text/plain' });
  res.end('not found');
});
server.keepAliveTimeout = 65_000;
server.requestTimeout = 0;
server.maxConnections = 20_000;
serveUntilParentGoes(server, { port, name: 'sse-upstream', url: base });
