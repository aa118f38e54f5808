// Small clients for the soak and hostile-load scripts: a unary POST that keeps the bytes, and raw
// sockets for what a well-behaved HTTP client never does (stall an upload, declare a huge body,
// climb out of the agent's path, hang up part-way). Every one is bounded by a timeout.
import http from 'node:http';
import net from 'node:net';
import { A2A_HEADERS, SSE_HEADERS, sendMessageRequest, streamingRequest } from './payloads.mjs';
import { monoMs } from './sse-client.mjs';

/** POST `body`; resolves {status, body: Buffer, ms, error}. Never rejects. */
export function post(url, body, { agent = false, headers = A2A_HEADERS, timeoutMs = 10_000 } = {}) {
  return new Promise((resolve) => {
    const t0 = monoMs();
    const out = { status: 0, body: Buffer.alloc(0), ms: 0, error: null };
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
      { method: 'POST', agent, headers: { ...headers, 'content-length': Buffer.byteLength(body) } },
      (res) => {
        out.status = res.statusCode;
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          out.body = Buffer.concat(chunks);
          finish();
        });
        res.on('error', finish);
        res.on('aborted', () => finish(new Error('aborted')));
      },
    );
    const timer = setTimeout(() => req.destroy(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);
    req.on('error', finish);
    req.end(body);
  });
}

/**
 * A raw connection that writes `head` (and `body` bytes) and then, as told, waits for the answer
 * (`read: true`), holds still until `holdMs` passes or `release()` is called, or hangs up at once
 * (`holdMs: 0`). Resolves {status (0 when none came), error}.
 */
export function rawExchange(port, head, { body = '', holdMs = 10_000, onConnect } = {}) {
  let socket;
  const result = new Promise((resolve) => {
    let text = '';
    let done = false;
    const finish = (error = null) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
      resolve({ status, error });
    };
    socket = net.connect(port, '127.0.0.1', () => {
      onConnect?.();
      socket.write(head);
      if (body) socket.write(body);
      if (holdMs === 0) setTimeout(finish, 5); // let the bytes leave, then hang up
    });
    socket.setNoDelay(true);
    socket.on('data', (d) => {
      if (text.length < 4096) text += d.toString('latin1');
      if (/\r\n\r\n/.test(text)) finish(); // the head of an answer is all these clients look at
    });
    socket.on('error', (e) => finish(e.message));
    socket.on('close', () => finish());
    const timer = setTimeout(() => finish(), holdMs || 10_000);
  });
  return { result, release: () => socket?.destroy() };
}

const postHead = (path, length, extra = '') =>
  `POST ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\na2a-version: 1.0\r\n` +
  `content-length: ${length}\r\n${extra}\r\n`;

/** An upload that declares `contentLength` bytes, sends the first `sendBytes` and stalls. */
export function stalledUpload(port, path, { contentLength = 10 * 1024 * 1024, sendBytes = 200, holdMs, onConnect }) {
  const body = sendMessageRequest().slice(0, sendBytes);
  return rawExchange(port, postHead(path, contentLength), { body, holdMs, onConnect });
}

/**
 * A JSON-RPC request declared larger than `limits.bodyBytes` (32 MiB), its first 64 KB sent: the
 * gateway answers 413 once it has classified the body's start.
 */
export function oversizedUpload(port, path) {
  const body = `${sendMessageRequest().slice(0, -1)},"pad":"${'x'.repeat(64 * 1024)}`;
  return rawExchange(port, postHead(path, 64 * 1024 * 1024), { body, holdMs: 5000 });
}

/** A request target that climbs above the agent's base path: 400 before anything is forwarded. */
export function pathEscape(port, agent) {
  const head = `GET /agents/${agent}/%2e%2e/%2e%2e/etc/passwd HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n`;
  return rawExchange(port, head, { holdMs: 5000 });
}

/** An upload abandoned part-way: headers and half the body, then the client hangs up. */
export function abortedUpload(port, path) {
  const body = sendMessageRequest();
  return rawExchange(port, postHead(path, body.length), { body: body.slice(0, body.length >> 1), holdMs: 0 });
}

/** A stream the client hangs up on after its first bytes. Resolves {status, error}. */
export function abortedStream(url, bench, { timeoutMs = 10_000 } = {}) {
  return new Promise((resolve) => {
    const body = streamingRequest(bench);
    let done = false;
    const finish = (status, error = null) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      req.destroy();
      resolve({ status, error });
    };
    const headers = { ...SSE_HEADERS, 'content-length': Buffer.byteLength(body) };
    const req = http.request(url, { method: 'POST', agent: false, headers }, (res) => {
      res.once('data', () => finish(res.statusCode));
      res.on('end', () => finish(res.statusCode));
      res.on('error', () => finish(res.statusCode));
    });
    const timer = setTimeout(() => finish(0, 'timed out'), timeoutMs);
    req.on('error', (e) => finish(0, e.message));
    req.end(body);
  });
}
