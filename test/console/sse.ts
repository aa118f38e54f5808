/** A real SSE client for the console feed tests: fetch (undici) reading the stream, events parsed
 * as they arrive, waited for by predicate (no timing thresholds). */
export interface SseEvent {
  readonly event: string;
  readonly data: string;
}

export interface SseReader {
  readonly status: number;
  readonly events: SseEvent[];
  /** Resolves once `predicate` holds over the events received so far (rejects if the stream ends first). */
  until(predicate: (events: SseEvent[]) => boolean): Promise<void>;
  close(): void;
}

export async function openSse(url: string, headers: Record<string, string> = {}): Promise<SseReader> {
  const abort = new AbortController();
  const res = await fetch(url, { headers, signal: abort.signal });
  const events: SseEvent[] = [];
  const waiters = new Set<() => void>();
  let ended = false;
  const pump = async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (event !== undefined) events.push({ event, data: data ?? '' });
        }
        for (const wake of waiters) wake();
      }
    } catch {
      // aborted
    }
    ended = true;
    for (const wake of waiters) wake();
  };
  if (res.body) void pump();
  const until = (predicate: (events: SseEvent[]) => boolean) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (predicate(events)) {
          waiters.delete(check);
          resolve();
        } else if (ended) {
          waiters.delete(check);
          reject(new Error(`stream ended; events: ${events.map((e) => e.event).join(',')}`));
        }
      };
      waiters.add(check);
      check();
    });
  return { status: res.status, events, until, close: () => abort.abort() };
}
