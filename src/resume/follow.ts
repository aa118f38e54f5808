/**
 * A resume's replay, the same for every binding (docs/fleet.md "Stream resume"): the window's
 * events after the client's last one, in order, then — while some gateway process still reads
 * the agent's stream (the live lease) — each new one as it is appended, until the stream's end
 * marker. Every event goes out exactly once: numbers must follow on one by one, and a hole (the
 * window trimmed past a slow reader, or a write that failed) ends the replay as `gap`.
 */
import type { ReplayWindows, StreamEnd, WindowEvent, WindowRead, WindowTail } from './window.js';
import type { Exchange } from '../exchange/exchange.js';
import { GatewayError } from '../errors/gateway-error.js';
import { A2AError } from '../errors/a2a-error.js';

/** Why a replay ended: the agent's stream ended (`end`, `cut`), nobody reads it any more, a hole, or the client left. */
export type FollowEnd = StreamEnd | 'unread' | 'gap' | 'client-gone';

export interface FollowSink {
  /** Writes one event; resolves when the client may take more. */
  write(event: WindowEvent): Promise<void> | void;
  readonly closed: boolean;
  /** Settles when the client goes away. */
  readonly gone: Promise<void>;
}

/** Longest one wait for new events (then the live lease is looked at again). */
const TAIL_MS = 2000;

export async function followWindow(
  windows: ReplayWindows,
  key: string,
  after: number,
  first: WindowRead,
  sink: FollowSink,
): Promise<FollowEnd> {
  let last = after;
  let read = first;
  let tail: WindowTail | undefined;
  try {
    for (;;) {
      for (const event of read.events) {
        if (event.seq <= last) continue;
        if (event.seq !== last + 1) return 'gap';
        if (sink.closed) return 'client-gone';
        await sink.write(event);
        last = event.seq;
      }
      if (read.ended) return read.ended;
      if (!read.live) return 'unread';
      tail ??= windows.tail(key);
      await Promise.race([tail.wait(last, TAIL_MS).catch(() => undefined), sink.gone]);
      if (sink.closed) return 'client-gone';
      read = await windows.read(key, last);
    }
  } finally {
    tail?.close();
  }
}

/** The first read cannot be resumed: the window is gone, or no longer holds the event after `after`. */
export function beyondWindow(read: WindowRead, after: number): boolean {
  if (!read.found) return true;
  const first = read.events[0];
  return first !== undefined && first.seq !== after + 1;
}

/** A replay's answer once the window is read: the agent's stream went on (the relay has it), or how to end. */
export type AfterReplay =
  { readonly continued: true } | { readonly continued: false; readonly failure?: ReplayFailure };
export type ReplayFailure = GatewayError | A2AError;

/**
 * After a replay whose agent stream is not over (`cut`, `unread`) and whose client is still
 * there: go on with the agent's SubscribeToTask (each binding's `continueStream`). What ends the
 * answer otherwise: the refusal that stopped the continuation — such as TaskNotFound
 * `TASK_REPLICA_GONE` when the task's replica is gone (src/fleet/placement.ts) — or, short of
 * the agent's end, a hole (RESUME_WINDOW_EXCEEDED) or a stream no longer followed (UPSTREAM_RESET).
 */
export async function afterReplay(
  exchange: Exchange,
  ended: FollowEnd,
  clientClosed: boolean,
  continueStream: (taskId: string) => Promise<boolean>,
  taskId: string,
): Promise<AfterReplay> {
  if (ended === 'end' || ended === 'client-gone') return { continued: false };
  if ((ended === 'unread' || ended === 'cut') && !clientClosed) {
    exchange.record.resume = 'continued';
    try {
      if (await continueStream(taskId)) return { continued: true };
    } catch (err) {
      if (err instanceof GatewayError || err instanceof A2AError) return { continued: false, failure: err };
    }
  }
  const reason = ended === 'gap' ? 'RESUME_WINDOW_EXCEEDED' : 'UPSTREAM_RESET';
  const message = `the agent's stream is no longer followed (${ended}); SubscribeToTask to continue`;
  return { continued: false, failure: new GatewayError(reason, message) };
}
