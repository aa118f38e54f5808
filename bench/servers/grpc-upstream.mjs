// gRPC upstream for scenarios 8 and 9: a bare node:http2 cleartext (h2c) server, no gRPC SDK, so
// the upstream itself costs little (as sse-upstream.mjs does for SSE).
//
//   node bench/servers/grpc-upstream.mjs --port N
//
// /lf.a2a.v1.A2AService/SendMessage: a fixed SendMessageResponse (a direct agent Message,
// lib/grpc-wire.mjs), encoded once at start. /lf.a2a.v1.A2AService/SendStreamingMessage:
// `x-bench-events` (request metadata, default 10, 2..1,000,000) StreamResponse messages — a
// Task, then status and artifact updates (~512 B) in turn, then a final COMPLETED status
// update — written in batches as fast as the stream takes them (honouring backpressure).
// Both end with trailers `grpc-status: 0`. The request body is read and discarded once whole.
// Anything else: grpc-status 12 (UNIMPLEMENTED). Exits when its stdin closes or on SIGTERM.
import http2 from 'node:http2';
import { serveUntilParentGoes, portArg } from '../lib/serve-child.mjs';
import {
  SEND_MESSAGE,
  SEND_STREAMING_MESSAGE,
  EVENTS_HEADER,
  frame,
  sendMessageResponse,
  streamResponses,
} from '../lib/grpc-wire.mjs';

const port = portArg('usage: grpc-upstream.mjs --port N');
const MAX_EVENTS = 1_000_000;
const BATCH = 32;

const UNARY = frame(sendMessageResponse());
const S = streamResponses();
const FIRST = frame(S.first);
const LAST = frame(S.last);
/** BATCH middle messages (status and artifact updates in turn) as one buffer, and one of each. */
const MIDS = S.mids.map(frame);
const MID_BATCH = Buffer.concat(Array.from({ length: BATCH }, (_, i) => MIDS[i % 2]));

const HEADERS = { ':status': 200, 'content-type': 'application/grpc' };
const OK = { 'grpc-status': '0' };

/** Everything between the first and the last message, in batches, until the stream pushes back. */
function pump(stream, left) {
  while (left.n > 0 && !stream.destroyed) {
    let ok;
    if (left.n >= BATCH) {
      ok = stream.write(MID_BATCH);
      left.n -= BATCH;
    } else {
      ok = stream.write(MIDS[left.n % 2]);
      left.n -= 1;
    }
    if (!ok) {
      stream.once('drain', () => pump(stream, left));
      return;
    }
  }
  if (!stream.destroyed) {
    stream.write(LAST);
    stream.end();
  }
}

function answer(stream, headers) {
  const path = headers[':path'];
  if (path === SEND_MESSAGE) {
    stream.respond(HEADERS, { waitForTrailers: true });
    stream.once('wantTrailers', () => stream.sendTrailers(OK));
    stream.end(UNARY);
    return;
  }
  if (path === SEND_STREAMING_MESSAGE) {
    const events = Math.min(Math.max(2, Number(headers[EVENTS_HEADER] ?? 10) || 10), MAX_EVENTS);
    stream.respond(HEADERS, { waitForTrailers: true });
    stream.once('wantTrailers', () => stream.sendTrailers(OK));
    stream.write(FIRST);
    pump(stream, { n: events - 2 });
    return;
  }
  stream.respond({ ...HEADERS, 'grpc-status': '12', 'grpc-message': 'unknown method' }, { endStream: true });
}

const server = http2.createServer({ settings: { maxConcurrentStreams: 1000 } });
server.on('stream', (stream, headers) => {
  stream.on('error', () => {});
  // A unary or server-streaming call sends one request message: answer once it is whole.
  stream.on('data', () => {});
  stream.once('end', () => answer(stream, headers));
});
server.on('session', (session) => session.on('error', () => session.destroy()));
serveUntilParentGoes(server, { port, name: 'grpc-upstream', url: `h2c://127.0.0.1:${port}` });
