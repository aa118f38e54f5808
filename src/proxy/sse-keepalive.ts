/**
 * Where an SSE stream being relayed stands, and the keepalive comments written into it while it is
 * quiet (README "SSE keepalive"): proxies and load balancers drop streams idle for ~60 s, quiet but
 * healthy ones included. A comment goes out only between two events, and the quiet time counts
 * from the agent's last bytes. The quiet time is kept by one shared timer per keepalive period
 * (`keepalive-wheel.ts`), not a timer per stream: the stream is the wheel's list node itself.
 */
import type { ServerResponse } from 'node:http';
import type { ExchangeRecord } from '../exchange/record.js';
import { keepaliveWheel, type KeepaliveWheel, type QuietEntry } from './keepalive-wheel.js';

/** An SSE comment line (W3C: lines starting with ':' are ignored) followed by a blank line, which
 * dispatches nothing because no data was buffered: clients and proxies see traffic, parsers see
 * no event. */
const KEEPALIVE = Buffer.from(': keepalive\n\n');

/** True when the bytes sent so far end between two SSE events (W3C: a blank line ends an event). */
function atEventBoundary(last: Buffer | undefined): boolean {
  if (!last) return true;
  const n = last.length;
  const a = last[n - 1];
  const b = last[n - 2];
  return (a === 0x0a && (b === 0x0a || (b === 0x0d && last[n - 3] === 0x0a))) || (a === 0x0d && b === 0x0d);
}

export class SseKeepalive implements QuietEntry {
  /** The last chunk relayed: enough to tell whether the stream stands between two events. */
  private last: Buffer | undefined;
  // The wheel's bookkeeping (QuietEntry).
  quietWheel: KeepaliveWheel | undefined = undefined;
  quietPrev: QuietEntry | undefined = undefined;
  quietNext: QuietEntry | undefined = undefined;
  quietDue = 0;

  constructor(
    private readonly res: ServerResponse,
    private readonly record: ExchangeRecord,
  ) {}

  /** Writes a comment after every `ms` of quiet (the timer does not keep the process alive). */
  start(ms: number): void {
    keepaliveWheel(ms).add(this);
  }

  /** The agent's `chunk` is being relayed: the quiet time starts again from now. */
  refresh(chunk: Buffer): void {
    this.last = chunk;
    this.quietWheel?.touch(this);
  }

  get atEventBoundary(): boolean {
    return atEventBoundary(this.last);
  }

  /** The bytes so far end a line (so a blank line would dispatch the event they hold, whole). */
  get atLineEnd(): boolean {
    const last = this.last?.[this.last.length - 1];
    return last === undefined || last === 0x0a || last === 0x0d;
  }

  stop(): void {
    this.quietWheel?.remove(this);
  }

  /** A full keepalive period without the agent's bytes (called by the wheel). */
  onQuiet(): void {
    // Only between two events: a comment inside an event would end it early.
    if (!atEventBoundary(this.last) || this.res.writableEnded) return;
    this.res.write(KEEPALIVE);
    this.record.keepalivesSent++;
  }
}
