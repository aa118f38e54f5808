// Minimal SSE reader for the streaming scenarios (not a load generator: it reads streams the
// upstream paces). For every event it records delay = receive time − metadata.sentMono, both on
// CLOCK_MONOTONIC (process.hrtime), which every process on the machine shares.
import http from 'node:http';
import { SSE_HEADERS, streamingRequest } from './payloads.mjs';

export const monoMs = () => Number(process.hrtime.bigint() / 1000n) / 1000;

const MARK = '"sentMono":';
const SEQ = '"seq":';
const SEP = Buffer.from('\n\n');
const HEAD_CHARS = 512;

/** Keep-alive, as A2A clients (fetch/undici) are: sequential streams reuse their connection. */
export const keepAliveAgent = new http.Agent({ keepAlive: true, maxSockets: Infinity, maxFreeSockets: 64 });

/**
 * The reader of one stream's body: returns `onData(chunk)`, which counts the events into `out`
 * and, per event, takes its delay = now − metadata.sentMono (into `out.delays` if `collect`,
 * and to `onEvent(delayMs, seq)`).
 */
function eventReader(out, { collect, onEvent }) {
  // Only the first HEAD_CHARS of each event are kept (sentMono and seq sit at its start): the
  // reader stays O(bytes) however large the events and however finely the path splits them.
  let head = '';
  let lastWasNL = false;
  const endEvent = (now) => {
    if (head.startsWith('data:')) {
      out.events++;
      const i = head.indexOf(MARK);
      if (i !== -1) {
        const d = now - parseFloat(head.slice(i + MARK.length, i + MARK.length + 24));
        if (collect) out.delays.push(d);
        if (onEvent) {
          const j = head.indexOf(SEQ);
          onEvent(d, j === -1 ? -1 : parseInt(head.slice(j + SEQ.length, j + SEQ.length + 12), 10));
        }
      }
    }
    head = '';
  };
  const addHead = (chunk, a, b) => {
    if (head.length < HEAD_CHARS && b > a)
      head += chunk.toString('latin1', a, Math.min(b, a + HEAD_CHARS - head.length));
  };
  return (chunk) => {
    const now = monoMs();
    if (out.firstByteMs === null) out.firstByteMs = now;
    out.bytes += chunk.length;
    let pos = 0;
    // Events end with a blank line ("\n\n"); the two newlines may straddle two reads.
    if (lastWasNL && chunk.length > 0 && chunk[0] === 10) {
      endEvent(now);
      pos = 1;
    }
    lastWasNL = false;
    while (pos < chunk.length) {
      const e = chunk.indexOf(SEP, pos);
      if (e === -1) {
        addHead(chunk, pos, chunk.length);
        lastWasNL = chunk[chunk.length - 1] === 10;
        break;
      }
      addHead(chunk, pos, e);
      endEvent(now);
      pos = e + 2;
    }
  };
}

/**
 * Open one stream: POST `url` with a SendStreamingMessage asking the upstream for `bench`.
 * Resolves {status, events, bytes, delays (ms, one per event if `collect`), startMs, endMs, error}.
 * Bounded by `timeoutMs`; `onEvent(delayMs, seq)` is called per event if given.
 */
export function openStream(url, bench, { agent, timeoutMs = 120_000, collect = true, onEvent, onOpen } = {}) {
  return new Promise((resolve) => {
    const body = streamingRequest(bench);
    const out = {
      status: 0,
      events: 0,
      bytes: 0,
      delays: collect ? [] : null,
      startMs: monoMs(),
      firstByteMs: null,
      endMs: null,
      error: null,
    };
    const onData = eventReader(out, { collect, onEvent });
    let done = false;
    const finish = (err) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      out.endMs = monoMs();
      if (err) out.error = err.message ?? String(err);
      resolve(out);
    };
    const headers = { ...SSE_HEADERS, 'content-length': Buffer.byteLength(body) };
    const req = http.request(url, { method: 'POST', agent: agent ?? keepAliveAgent, headers }, (res) => {
      out.status = res.statusCode;
      onOpen?.(res.statusCode);
      res.on('data', onData);
      res.on('end', () => finish());
      res.on('error', (e) => finish(e));
      res.on('aborted', () => finish(new Error('aborted')));
    });
    const timer = setTimeout(() => req.destroy(new Error(`stream timed out after ${timeoutMs} ms`)), timeoutMs);
    req.on('error', (e) => finish(e));
    req.end(body);
  });
}

/**
 * Read a unary response of any size, counting bytes only (scenario 5). Resolves
 * {status, bytes, ms, error}.
 */
export function readUnary(url, body, headers, { timeoutMs = 120_000 } = {}) {
  return new Promise((resolve) => {
    const t0 = monoMs();
    const out = { status: 0, bytes: 0, ms: 0, error: null, contentLength: null };
    let done = false;
    const finish = (err) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      out.ms = monoMs() - t0;
      if (err) out.error = err.message ?? String(err);
      resolve(out);
    };
    const req = http.request(
      url,
      { method: 'POST', agent: keepAliveAgent, headers: { ...headers, 'content-length': Buffer.byteLength(body) } },
      (res) => {
        out.status = res.statusCode;
        out.contentLength = res.headers['content-length'] ? Number(res.headers['content-length']) : null;
        res.on('data', (c) => {
          out.bytes += c.length;
        });
        res.on('end', () => finish());
        res.on('error', (e) => finish(e));
      },
    );
    const timer = setTimeout(() => req.destroy(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);
    req.on('error', (e) => finish(e));
    req.end(body);
  });
}
