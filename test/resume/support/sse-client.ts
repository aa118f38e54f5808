/**
 * A raw SSE client over node:http (no SDK, no reconnect logic): what the gateway sends, event by
 * event (decoded by eventsource-parser, the repository's oracle for SSE: test/codec/sse-oracle.test.ts),
 * and a way to cut the connection at any event, as a client that loses its network would.
 */
import { request, type IncomingMessage } from 'node:http';
import { createParser, type EventSourceMessage } from 'eventsource-parser';

export interface SseAnswer {
  readonly status: number;
  readonly headers: IncomingMessage['headers'];
  /** The raw body so far. */
  readonly raw: () => Buffer;
  /** Resolves with the next event, or undefined once the answer has ended. */
  next(): Promise<EventSourceMessage | undefined>;
  /** Every event until the answer ends. */
  rest(): Promise<EventSourceMessage[]>;
  /** Cuts the connection (the socket is destroyed). */
  cut(): void;
}

export function postSse(url: string, body: string, headers: Record<string, string> = {}): Promise<SseAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: 'POST',
      agent: false,
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...headers },
    });
    req.on('error', reject);
    req.on('response', (res) => resolve(answerOf(res, () => req.destroy())));
    req.end(body);
  });
}

function answerOf(res: IncomingMessage, destroy: () => void): SseAnswer {
  const queue: EventSourceMessage[] = [];
  const chunks: Buffer[] = [];
  let ended = false;
  let wake: (() => void) | undefined;
  const parser = createParser({ onEvent: (e) => queue.push(e) });
  res.on('data', (d: Buffer) => {
    chunks.push(d);
    parser.feed(d.toString('utf8'));
    wake?.();
  });
  const done = () => {
    ended = true;
    wake?.();
  };
  res.on('end', done);
  res.on('close', done);
  res.on('error', done);
  const next = async (): Promise<EventSourceMessage | undefined> => {
    while (queue.length === 0 && !ended) await new Promise<void>((r) => (wake = r));
    return queue.shift();
  };
  return {
    status: res.statusCode ?? 0,
    headers: res.headers,
    raw: () => Buffer.concat(chunks),
    next,
    rest: async () => {
      const all: EventSourceMessage[] = [];
      for (let e = await next(); e; e = await next()) all.push(e);
      return all;
    },
    cut: destroy,
  };
}

/** The data of every event in raw SSE bytes (as the agent wrote them). */
/** A stream call whose client reads `n` events and then cuts the connection: the events it got. */
export async function readThenCut(
  url: string,
  body: string,
  headers: Record<string, string>,
  n = 3,
): Promise<EventSourceMessage[]> {
  const first = await postSse(url, body, headers);
  const events: EventSourceMessage[] = [];
  while (events.length < n) events.push((await first.next())!);
  first.cut();
  return events;
}

export function eventData(raw: Buffer): string[] {
  const out: string[] = [];
  const parser = createParser({ onEvent: (e) => out.push(e.data) });
  parser.feed(raw.toString('utf8'));
  return out;
}
