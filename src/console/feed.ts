/**
 * The console's live feed (issue #15, `GET /console/api/feed`): an exchange observer that writes
 * each finished exchange as an SSE event (`event: exchange`, its ExchangeSummary as `data:`) to
 * every connected console. Bounded: at most `console.feed.maxClients` consoles; each may have at
 * most `console.feed.bufferBytes` waiting (what `res.write` could not flush, `res.writableLength`)
 * — past it that console is sent `event: dropped` and closed, never buffered without bound. One
 * shared keepalive timer for all consoles. With none connected the observer returns before
 * building anything. Made once (src/gateway.ts, `Shared`): consoles stay connected across reloads;
 * closing the admin listener (src/transport/listen.ts closeNow) ends them.
 */
import type { ServerResponse } from 'node:http';
import type { ExchangeObserver } from '../exchange/exchange.js';
import { traceIdOf } from '../telemetry/tracing/trace-context.js';
import type { ConsoleConfig } from '../config/console-schema.js';
import { summarize } from './summary.js';

export type FeedSettings = ConsoleConfig['feed'];

const KEEPALIVE = ': keepalive\n\n';
const DROPPED = 'event: dropped\ndata: {"reason":"slow consumer"}\n\n';
/** A dropped console gets this long to take the `dropped` event before its socket is destroyed. */
const DROP_GRACE_MS = 1000;

export interface FeedStats {
  readonly clients: number;
  /** Bytes waiting for all consoles together (each at most bufferBytes plus one event). */
  readonly bufferedBytes: number;
  /** Consoles dropped for reading too slowly, since start. */
  readonly dropped: number;
}

export class FeedHub {
  private readonly clients = new Set<ServerResponse>();
  private timer: NodeJS.Timeout | undefined;
  private droppedCount = 0;

  constructor(private settings: FeedSettings) {}

  /** A reload's `console.feed` (limits apply to new writes; the keepalive to the next timer). */
  configure(settings: FeedSettings): void {
    const keepaliveChanged = settings.keepalive !== this.settings.keepalive;
    this.settings = settings;
    if (keepaliveChanged && this.timer !== undefined) {
      this.stopTimer();
      this.startTimer();
    }
  }

  readonly observer: ExchangeObserver = {
    name: 'console-feed',
    onFinish: (exchange) => {
      if (this.clients.size === 0) return;
      const summary = summarize(exchange.record, traceIdOf(exchange));
      this.broadcast(`event: exchange\ndata: ${JSON.stringify(summary)}\n\n`);
    },
  };

  /** Takes over `res` as a feed; false (nothing written) when maxClients are connected. */
  attach(res: ServerResponse): boolean {
    if (this.clients.size >= this.settings.maxClients) return false;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-accel-buffering': 'no',
    });
    res.write(': console feed\n\n');
    this.clients.add(res);
    res.once('close', () => this.detach(res));
    if (this.timer === undefined) this.startTimer();
    return true;
  }

  stats(): FeedStats {
    let bufferedBytes = 0;
    for (const res of this.clients) bufferedBytes += res.writableLength;
    return { clients: this.clients.size, bufferedBytes, dropped: this.droppedCount };
  }

  /** Ends every feed (shutdown). */
  close(): void {
    for (const res of this.clients) res.destroy();
    this.clients.clear();
    this.stopTimer();
  }

  private broadcast(frame: string): void {
    const limit = this.settings.bufferBytes - Buffer.byteLength(frame);
    for (const res of this.clients) {
      if (res.writableLength > limit) this.drop(res);
      else res.write(frame);
    }
  }

  /**
   * Too slow: told so if it can still take it, then closed. The socket itself is destroyed: once
   * `end` has handed the bytes over, the response detaches from a keep-alive socket that would
   * otherwise stay open holding them.
   */
  private drop(res: ServerResponse): void {
    this.droppedCount++;
    this.detach(res);
    const socket = res.socket;
    res.end(DROPPED);
    setTimeout(() => (socket ?? res).destroy(), DROP_GRACE_MS).unref();
  }

  private detach(res: ServerResponse): void {
    this.clients.delete(res);
    if (this.clients.size === 0) this.stopTimer();
  }

  private startTimer(): void {
    this.timer = setInterval(() => this.broadcast(KEEPALIVE), this.settings.keepalive);
    this.timer.unref();
  }

  private stopTimer(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }
}
