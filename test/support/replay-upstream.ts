/**
 * An upstream that answers with recorded responses (test/a2a/captures.ts), byte for byte. The
 * capture to play is named by the `x-replay` request header (its file name). The body is written in the recorded TCP reads
 * (timing file) so SSE events leave one by one; `between` lets a test hold the stream between
 * two reads.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadCapture, type Capture } from '../a2a/captures.js';

export interface ReceivedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly rawHeaders: string[];
  readonly body: Buffer;
}

export interface ReplayUpstream {
  readonly url: string;
  readonly received: ReceivedRequest[];
  /** Called before each body read after the first; the stream waits for it. */
  between?: (capture: Capture, readIndex: number) => Promise<void>;
  close(): Promise<void>;
}

/** Response headers a replay must not copy: Node frames the body itself. */
const FRAMING = new Set(['transfer-encoding', 'connection', 'keep-alive', 'date']);

function reads(capture: Capture): Buffer[] {
  const body = asBuffer(capture.response!.body);
  if (!capture.reads) return body.length ? [body] : [];
  const out: Buffer[] = [];
  let at = 0;
  for (const { bytes } of capture.reads) {
    out.push(body.subarray(at, at + bytes));
    at += bytes;
  }
  return out;
}

/** The capture's bytes as a Buffer, without copying. */
export function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
}

export async function startReplayUpstream(): Promise<ReplayUpstream> {
  const cache = new Map<string, Capture>();
  const upstream: ReplayUpstream = { url: '', received: [], close: async () => {} };
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (req.headers['x-replay'])
      upstream.received.push({
        method: req.method!,
        url: req.url!,
        headers: req.headers,
        rawHeaders: req.rawHeaders,
        body: Buffer.concat(chunks),
      });
    const name = String(req.headers['x-replay'] ?? '');
    if (!name) {
      // The gateway's own card probe: this upstream has no card of its own.
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"error":"no x-replay header"}');
      return;
    }
    let capture = cache.get(name);
    if (!capture) cache.set(name, (capture = loadCapture(name)));
    const response = capture.response!;
    const headers: string[] = [];
    for (const [n, v] of response.rawHeaders) if (!FRAMING.has(n.toLowerCase())) headers.push(n, v);
    res.writeHead(response.status, headers);
    const parts = reads(capture);
    for (let i = 0; i < parts.length; i++) {
      if (i > 0 && upstream.between) await upstream.between(capture, i);
      res.write(parts[i]);
    }
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  upstream.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return Object.assign(upstream, { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
}
