/**
 * The console's live feed (`GET /console/api/feed`): an exchange observer that writes
 * each finished exchange as an SSE event (`event: exchange`, its ExchangeSummary as `data:`) to
 * every connected console. Bounded: at most `console.feed.maxClients` consoles; each may have at
 * most `console.feed.bufferBytes` waiting (what `res.write` could not flush, `res.writableLength`)
 * — past it that console is sent `event: dropped` and closed, never buffered without bound. One
 * shared keepalive timer for all consoles. With none connected the observer returns before
 * building anything. Events are batched: one write per console every FLUSH_MS (or sooner when
 * the batch is big), not one per exchange, since a write per console per exchange is a syscall
 * each (bench `gateway+console`: 20 consoles doubled the gateway's CPU per request before this).
 * At most `console.feed.maxRate` exchanges a second are sent; the rest are counted and sent as
 * one `event: skipped` (`{"count":N}`) — a person reads no faster, and 20 consoles taking every
 * exchange of a busy gateway cost the machine's cores more than the traffic (the fleet view's
 * counts come from the stats observer and miss nothing). Made once (src/gateway/gateway.ts, `Shared`):
 * consoles stay connected across reloads; closing the admin listener ends them.
 */
import type { ServerResponse } from 'node:http';
import type { ExchangeObserver } from '../exchange/exchange.js';
import { traceIdOf } from '../telemetry/tracing/trace-context.js';
import type { ConsoleConfig } from '../config/console-schema.js';
import { summarize } from './summary.js';

export type FeedSettings = ConsoleConfig['feed'];

const KEEPALIVE = ': keepalive\n\n';
const skippedFrame = (count: number) => `event: skipped\ndata: {"count":${count}}\n\n`;
const DROPPED = 'event: dropped\ndata: {"reason":"slow consumer"}\n\n';
/** A dropped console gets this long to take the `dropped` event before its socket is destroyed. */
const DROP_GRACE_MS = 1000;
/** How long an event may wait to be written with the next ones: a console needs no faster. */
const FLUSH_MS = 50;
/** A batch this big is written at once (or half of bufferBytes, when that is less). */
const FLUSH_BYTES = 64 * 1024;

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
  private batch: string[] = [];
  private batchBytes = 0;
  private flushTimer: NodeJS.Timeout | undefined;
  /** The rate cap (`console.feed.maxRate`): exchanges sent in the current second, and skipped. */
  private windowStart = 0;
  private sentInWindow = 0;
  private skipped = 0;

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
      if (this.clients.size === 0 || !this.admit()) return;
      const frame = `event: exchange\ndata: ${JSON.stringify(summarize(exchange.record, traceIdOf(exchange)))}\n\n`;
      this.batch.push(frame);
      this.batchBytes += frame.length;
      if (this.batchBytes >= Math.min(FLUSH_BYTES, this.settings.bufferBytes / 2)) this.flush();
      else this.flushTimer ??= setTimeout(this.flush, FLUSH_MS).unref();
    },
  };

  /** Within `maxRate` this second: sent. Past it: counted for the next `skipped` event, nothing built. */
  private admit(): boolean {
    const now = Date.now();
    if (now - this.windowStart >= 1000) {
      this.windowStart = now;
      this.sentInWindow = 0;
    }
    if (this.sentInWindow < this.settings.maxRate) {
      this.sentInWindow++;
      return true;
    }
    if (this.skipped++ === 0) this.flushTimer ??= setTimeout(this.flush, FLUSH_MS).unref();
    return false;
  }

  /** Writes the batch (and how many were skipped) to every console (one write each). */
  private readonly flush = (): void => {
    if (this.flushTimer !== undefined) clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    if (this.skipped > 0) {
      this.batch.push(skippedFrame(this.skipped));
      this.skipped = 0;
    }
    if (this.batch.length === 0) return;
    const frames = this.batch.length === 1 ? this.batch[0]! : this.batch.join('');
    this.batch = [];
    this.batchBytes = 0;
    this.broadcast(frames);
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
    if (this.flushTimer !== undefined) clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    this.batch = [];
    this.batchBytes = 0;
    this.skipped = 0;
    for (const res of this.clients) res.destroy();
    this.clients.clear();
    this.stopTimer();
  }

  /** Writes `frames` to every console unless it would then have more than bufferBytes waiting
   * (a console with nothing waiting always takes it: one batch is at most half of bufferBytes
   * plus one event). */
  private broadcast(frames: string): void {
    const limit = this.settings.bufferBytes - Buffer.byteLength(frames);
    for (const res of this.clients) {
      const waiting = res.writableLength;
      if (waiting > 0 && waiting > limit) this.drop(res);
      else res.write(frames);
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
    if (this.clients.size === 0) {
      this.stopTimer();
      this.batch = [];
      this.batchBytes = 0;
    }
  }

  private startTimer(): void {
    this.timer = setInterval(() => {
      this.flush();
      this.broadcast(KEEPALIVE);
    }, this.settings.keepalive);
    this.timer.unref();
  }

  private stopTimer(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }
}
