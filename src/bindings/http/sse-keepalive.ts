/**
 * Where an SSE stream being relayed stands, and the keepalive comments written into it while it is
 * quiet (docs/operations.md "SSE keepalive"): proxies and load balancers drop streams idle for ~60 s, quiet but
 * healthy ones included. A comment goes out only between two events, and the quiet time counts
 * from the agent's last bytes. The quiet time is kept by one shared timer per keepalive period
 * (`keepalive-wheel.ts`), not a timer per stream: the stream is the wheel's list node itself.
 */
import type { ServerResponse } from 'node:http';
import type { ExchangeRecord } from '../../exchange/record.js';
import { keepaliveWheel, type KeepaliveWheel, type QuietEntry } from './keepalive-wheel.js';

/** An SSE comment line (W3C: lines starting with ':' are ignored) followed by a blank line, which
 * dispatches nothing because no data was buffered: clients and proxies see traffic, parsers see
 * no event. */
const KEEPALIVE = Buffer.from(': keepalive\n\n');

/** No byte yet (the last three bytes are kept as numbers, -1 for none). */
const NONE = -1;

/** True when bytes ending in `c b a` (`a` the last) end between two SSE events (W3C: a blank line
 * ends an event). Nothing relayed yet is a boundary too. */
function endsEvent(a: number, b: number, c: number): boolean {
  if (a === NONE) return true;
  return (a === 0x0a && (b === 0x0a || (b === 0x0d && c === 0x0a))) || (a === 0x0d && b === 0x0d);
}

export class SseKeepalive implements QuietEntry {
  // The last three bytes relayed (a the last), enough to tell whether the stream stands between
  // two events. Only these, never the chunk: holding the chunk kept its whole buffer alive for as
  // long as the stream stayed quiet (up to a 64 KiB read per open stream).
  private a = NONE;
  private b = NONE;
  private c = NONE;
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
    const n = chunk.length;
    if (n >= 3) {
      this.c = chunk[n - 3]!;
      this.b = chunk[n - 2]!;
      this.a = chunk[n - 1]!;
    } else if (n === 2) {
      this.c = this.a;
      this.b = chunk[0]!;
      this.a = chunk[1]!;
    } else if (n === 1) {
      this.c = this.b;
      this.b = this.a;
      this.a = chunk[0]!;
    }
    this.quietWheel?.touch(this);
  }

  get atEventBoundary(): boolean {
    return endsEvent(this.a, this.b, this.c);
  }

  /** The bytes so far end a line (so a blank line would dispatch the event they hold, whole). */
  get atLineEnd(): boolean {
    const { a } = this;
    return a === NONE || a === 0x0a || a === 0x0d;
  }

  stop(): void {
    this.quietWheel?.remove(this);
  }

  /** A full keepalive period without the agent's bytes (called by the wheel). */
  onQuiet(): void {
    // Only between two events: a comment inside an event would end it early.
    if (!this.atEventBoundary || this.res.writableEnded) return;
    this.res.write(KEEPALIVE);
    this.record.gatewayKeepalives++;
  }
}
