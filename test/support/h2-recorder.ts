// A recording HTTP/2 cleartext (h2c) proxy for gRPC: client → recorder → upstream, one upstream
// session for all streams. Per stream it keeps the request headers as received (pseudo-headers
// included, in order), every request DATA chunk, the response headers, every response DATA
// chunk with its ms since the request, and the trailers, or that the response was trailers-only
// (one HEADERS frame with END_STREAM). Serialised by test/support/grpc-capture-format.ts.
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';

/** Header lines in wire order: [name, value] pairs. */
export type HeaderList = Array<[string, string]>;

export interface RecordedChunk {
  /** ms since the request's headers arrived. */
  at: number;
  bytes: Buffer;
}

export interface H2Exchange {
  request: { headers: HeaderList; chunks: RecordedChunk[] };
  response: { headers: HeaderList; chunks: RecordedChunk[]; trailers: HeaderList; trailersOnly: boolean };
  /** ms from the request's headers to the end of the response. */
  totalMs: number;
  /** Set when either side reset the stream before it ended normally. */
  reset?: { code: number; at: number };
}

export interface H2Recorder {
  /** `127.0.0.1:<port>`, the target form grpc-js clients take. */
  url: string;
  /** Finished exchanges, in the order they ended. */
  exchanges: H2Exchange[];
  close(): Promise<void>;
}

const { NGHTTP2_FLAG_END_STREAM } = http2.constants;

/** Starts a recorder on 127.0.0.1:0 forwarding to `target` (`host:port`, cleartext). */
export async function startH2Recorder(target: string): Promise<H2Recorder> {
  const upstream = http2.connect(`http://${target}`);
  upstream.on('error', () => undefined);
  const exchanges: H2Exchange[] = [];
  const server = http2.createServer();
  // server.close() waits for open sessions, and a grpc-js channel keeps its session open.
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on('session', (s) => {
    sessions.add(s);
    s.on('close', () => sessions.delete(s));
  });
  // Node passes the raw header list (wire order, pseudo-headers first) as a 4th argument.
  const onStream = (stream: http2.ServerHttp2Stream, _h: unknown, _f: number, raw: string[]) =>
    relay(stream, raw, upstream, exchanges);
  server.on('stream', onStream as (stream: http2.ServerHttp2Stream) => void);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `127.0.0.1:${port}`,
    exchanges,
    close: () =>
      new Promise((resolve) => {
        upstream.destroy();
        for (const s of sessions) s.destroy();
        server.close(() => resolve());
      }),
  };
}

function relay(down: http2.ServerHttp2Stream, raw: string[], session: http2.ClientHttp2Session, into: H2Exchange[]) {
  const start = performance.now();
  const since = () => Math.round(performance.now() - start);
  const ex: H2Exchange = {
    request: { headers: pairs(raw), chunks: [] },
    response: { headers: [], chunks: [], trailers: [], trailersOnly: false },
    totalMs: 0,
  };
  const up = session.request(Object.fromEntries(ex.request.headers));
  down.on('data', (bytes: Buffer) => {
    ex.request.chunks.push({ at: since(), bytes });
    up.write(bytes);
  });
  down.on('end', () => up.end());
  const onResponse = (headers: http2.IncomingHttpHeaders, flags: number, rawResponse: string[]) => {
    ex.response.headers = pairs(rawResponse);
    ex.response.trailersOnly = (flags & NGHTTP2_FLAG_END_STREAM) !== 0;
    if (ex.response.trailersOnly) ex.response.trailers = ex.response.headers;
    down.respond(headers, ex.response.trailersOnly ? { endStream: true } : { waitForTrailers: true });
  };
  up.on('response', onResponse as (headers: http2.IncomingHttpHeaders, flags: number) => void);
  up.on('data', (bytes: Buffer) => {
    ex.response.chunks.push({ at: since(), bytes });
    down.write(bytes);
  });
  up.on('trailers', (_headers, _flags, rawTrailers: string[]) => {
    ex.response.trailers = pairs(rawTrailers);
  });
  down.on('wantTrailers', () => down.sendTrailers(Object.fromEntries(ex.response.trailers)));
  up.on('end', () => {
    if (!ex.response.trailersOnly) down.end();
  });
  wireResets(down, up, ex, since);
  up.on('close', () => {
    ex.totalMs = since();
    into.push(ex);
  });
}

/** A reset on either side resets the other, and is noted in the exchange. */
function wireResets(
  down: http2.ServerHttp2Stream,
  up: http2.ClientHttp2Stream,
  ex: H2Exchange,
  since: () => number,
): void {
  // rstCode 0 (NO_ERROR) is a normal end: nothing to pass on.
  const pass = (code: number, other: http2.Http2Stream) => {
    if (code === 0) return;
    ex.reset ??= { code, at: since() };
    if (!other.closed) other.close(code);
  };
  down.on('close', () => pass(down.rstCode, up));
  up.on('close', () => pass(up.rstCode, down));
  down.on('error', () => undefined);
  up.on('error', () => undefined);
}

function pairs(raw: string[]): HeaderList {
  const out: HeaderList = [];
  for (let i = 0; i + 1 < raw.length; i += 2) out.push([raw[i]!, raw[i + 1]!]);
  return out;
}
