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
// A call whose JSON-RPC method is an A2A 0.3 name (`message/stream`, ...: what the gateway sends a
// 0.3 agent, bench variant `gateway+translate`) gets the same stream in 0.3 (docs/wire-reference.md
// §6.3): bare `kind`-tagged results, lowercase states and roles, `{"kind":"text"}` parts, `final`
// on status updates; same sizes, frames built the same way, so the upstream costs the same.
// Modes: burst (as fast as the socket takes them, honouring backpressure), paced (`rate`
// events/s), interval (one event every `intervalMs`, first one at a random phase).
// Exits when its stdin closes (the harness died) or on SIGTERM.
import http from 'node:http';
import { agentCard } from '../lib/payloads.mjs';
import { serveUntilParentGoes, portArg } from '../lib/serve-child.mjs';

const port = portArg('usage: sse-upstream.mjs --port N');
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

const ids = `"taskId":"${TASK_ID}","contextId":"${CONTEXT_ID}"`;
const messageIds = `"messageId":"6117a51c-73de-4c4d-92f7-147e86da31a8","contextId":"${CONTEXT_ID}","taskId":"${TASK_ID}",`;

const KINDS_03 = { task: 'task', statusUpdate: 'status-update', artifactUpdate: 'artifact-update' };
const STATES_03 = {
  TASK_STATE_SUBMITTED: 'submitted',
  TASK_STATE_WORKING: 'working',
  TASK_STATE_COMPLETED: 'completed',
};

/**
 * What differs between the 1.0 and the 0.3 frames: how a result is tagged (1.0 wraps it in a
 * member named for its kind, 0.3 puts `kind` in it, so 1.0 closes one brace more), the enums, the
 * text part, and 0.3's `final` on a status update.
 */
const DIALECTS = {
  '1.0': {
    open: (kind) => `"${kind}":{`,
    close: '}}}',
    state: (s) => s,
    role: 'ROLE_AGENT',
    messageKind: '',
    part: (text) => `{"text":"${text}","mediaType":"text/plain"}`,
    final: () => '',
  },
  0.3: {
    open: (kind) => `"kind":"${KINDS_03[kind]}",`,
    close: '}}',
    state: (s) => STATES_03[s],
    role: 'agent',
    messageKind: '"kind":"message",',
    part: (text) => `{"kind":"text","text":"${text}"}`,
    final: (state) => `,"final":${state === 'TASK_STATE_COMPLETED'}`,
  },
};
/** The A2A 0.3 JSON-RPC methods (docs/translation.md, "Methods and routes"). */
const METHODS_03 = new Set(['message/send', 'message/stream', 'tasks/get', 'tasks/resubscribe']);

const agentMessage = (d, text) =>
  `"message":{${d.messageKind}${messageIds}"role":"${d.role}","parts":[${d.part(text)}]}`;
const artifactTail = (d) =>
  ',"artifact":{"artifactId":"bench-artifact","name":"bench.txt",' +
  `"parts":[${d.part('@PAD@')}]},"append":true,"lastChunk":false${d.close}`;

/**
 * Build the frame of one event as {head, tail}: the head is a short template holding the
 * per-event fields (@SEQ@, @MONO@, @TS@), the tail (padding included, possibly megabytes) is
 * built once per stream and reused. `d` is the dialect (DIALECTS).
 */
function frameParts(d, id, kind, state, eventBytes) {
  const pre = `data: {"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{${d.open(kind)}`;
  const meta = '"metadata":{"seq":@SEQ@,"sentMono":@MONO@}';
  const status = `"status":{"state":"${d.state(state)}","timestamp":"@TS@"`;
  let head;
  let tail;
  if (kind === 'task') {
    head = `${pre}"id":"${TASK_ID}","contextId":"${CONTEXT_ID}",${meta},${status}`;
    tail = `},"history":[]${d.close}`;
  } else if (kind === 'artifactUpdate') {
    head = `${pre}${ids},${meta}`;
    tail = artifactTail(d);
  } else {
    head = `${pre}${ids},${meta},${status}`;
    tail = `,${agentMessage(d, '@PAD@')}}${d.final(state)}${d.close}`;
  }
  tail += '\n\n';
  // head placeholders expand by ~ +5 (seq) +14 (mono) +20 (ts); aim the whole frame at eventBytes.
  const fixed = head.length + tail.length - 5 + 30;
  tail = tail.replace('@PAD@', pad(Math.max(0, eventBytes - fixed)));
  return { head, tail };
}

/** What the request asks for (params.metadata.bench), within the server's limits. */
function streamSpec(rpc) {
  const b = rpc?.params?.metadata?.bench ?? {};
  return {
    events: Math.min(Math.max(2, Number(b.events ?? 10)), LIMITS.events),
    eventBytes: Math.min(Math.max(0, Number(b.eventBytes ?? 300)), LIMITS.eventBytes),
    mode: b.mode ?? 'burst',
    rate: Number(b.rate ?? 1000),
    intervalMs: Number(b.intervalMs ?? 1000),
    midKind: b.kind === 'artifact' ? 'artifactUpdate' : 'statusUpdate',
    // The fan-ins (scenarios 4 and 10) ask for the connection to close with the stream, so that
    // a proxy's pool does not keep thousands of idle connections to this server for its 65 s
    // keep-alive into the next path's fan-in (bench/lib/measure.mjs, upstreamSettled).
    close: b.close === true,
    id: rpc?.id ?? 1,
    dialect: DIALECTS[METHODS_03.has(rpc?.method) ? '0.3' : '1.0'],
  };
}

/** The three frames of a stream: the task first, the middle events, the final COMPLETED. */
function streamFrames({ id, midKind, eventBytes, dialect: d }) {
  const parts = {
    first: frameParts(d, id, 'task', 'TASK_STATE_SUBMITTED', Math.min(eventBytes, 400)),
    mid: frameParts(d, id, midKind, 'TASK_STATE_WORKING', eventBytes),
    last: frameParts(d, id, 'statusUpdate', 'TASK_STATE_COMPLETED', Math.min(eventBytes, 400)),
  };
  // Large tails go out as Buffers built once; the timestamped head is tiny.
  for (const p of Object.values(parts)) {
    if (p.tail.length > 65536) p.tailBuf = Buffer.from(p.tail);
  }
  return parts;
}

/**
 * Burst: events go out in corked batches (one writev per ~16 KB) until the socket pushes back,
 * so the upstream itself costs little and the path under test is what limits the rate.
 */
function burst(s) {
  const pump = () => {
    s.res.cork();
    try {
      while (!s.closed && s.seq < s.events) {
        if (!s.writeOne()) {
          s.res.once('drain', pump);
          return;
        }
      }
    } finally {
      s.res.uncork();
    }
  };
  pump();
}

/** Paced: as many events as are due at `rate` per second, checked every millisecond. */
function paced(s, rate) {
  const start = monoMs();
  const tick = () => {
    s.timer = null;
    if (s.closed || s.seq >= s.events) return;
    const due = Math.min(s.events, Math.floor(((monoMs() - start) * rate) / 1000) + 1);
    while (!s.closed && s.seq < due) s.writeOne();
    if (!s.closed && s.seq < s.events) s.timer = setTimeout(tick, 1);
  };
  tick();
}

/** Interval: the task event now, then one event every intervalMs from a random phase. */
function interval(s, intervalMs) {
  s.writeOne();
  const next = (delay) => {
    s.timer = setTimeout(() => {
      s.timer = null;
      if (s.closed || s.seq >= s.events) return;
      s.writeOne();
      if (s.seq < s.events) next(intervalMs);
    }, delay);
  };
  next(Math.random() * intervalMs);
}

/** A stream's state, and `writeOne()`: write event number `seq`, return the backpressure flag. */
function openStreamState(res, spec) {
  const parts = streamFrames(spec);
  const s = { res, events: spec.events, seq: 0, closed: false, timer: null };
  const deadline = setTimeout(() => res.destroy(), LIMITS.streamSeconds * 1000);
  res.on('close', () => {
    s.closed = true;
    clearTimeout(deadline);
    if (s.timer) clearTimeout(s.timer);
  });
  s.writeOne = () => {
    const p = s.seq === 0 ? parts.first : s.seq === s.events - 1 ? parts.last : parts.mid;
    const head = p.head
      .replace('@SEQ@', String(s.seq))
      .replace('@TS@', new Date().toISOString())
      .replace('@MONO@', monoMs().toFixed(3));
    let ok;
    if (p.tailBuf) {
      res.write(head);
      ok = res.write(p.tailBuf);
    } else {
      ok = res.write(head + p.tail);
    }
    s.seq++;
    if (s.seq >= s.events) {
      res.end();
      clearTimeout(deadline);
    }
    return ok;
  };
  return s;
}

function handleStream(req, res, rpc) {
  const spec = streamSpec(rpc);
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    'x-accel-buffering': 'no',
    ...(spec.close ? { connection: 'close' } : {}),
  });
  res.flushHeaders();
  const s = openStreamState(res, spec);
  if (spec.mode === 'burst') burst(s);
  else if (spec.mode === 'paced') paced(s, spec.rate);
  else interval(s, spec.intervalMs);
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
