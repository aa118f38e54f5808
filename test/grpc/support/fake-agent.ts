// A bare HTTP/2 gRPC "agent" (node:http2): records each stream it gets and how it ended, and
// answers as the test says (or never), so a test sees whether the gateway cancelled the agent's stream.
import { createServer, type ServerHttp2Stream, type IncomingHttpHeaders, type Settings } from 'node:http2';
import type { AddressInfo } from 'node:net';

export interface FakeStream {
  readonly headers: IncomingHttpHeaders;
  /** Set once the stream closed: the RST_STREAM code (8 = CANCEL) or 0. */
  rstCode?: number;
  closed: boolean;
}

export interface FakeAgent {
  readonly url: string;
  readonly streams: FakeStream[];
  close(): Promise<void>;
}

/** `answer` runs per stream; the default never answers (a slow agent). `settings`: its HTTP/2 SETTINGS. */
export async function startFakeAgent(
  answer?: (stream: ServerHttp2Stream) => void,
  settings?: Settings,
): Promise<FakeAgent> {
  const streams: FakeStream[] = [];
  const server = createServer({ settings });
  server.on('stream', (stream, headers) => {
    const entry: FakeStream = { headers, closed: false };
    streams.push(entry);
    stream.on('error', () => {});
    stream.on('close', () => {
      entry.closed = true;
      entry.rstCode = stream.rstCode;
    });
    stream.resume();
    answer?.(stream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    streams,
    close: () =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 500);
        server.close(() => {
          clearTimeout(timer);
          resolve();
        });
      }),
  };
}
