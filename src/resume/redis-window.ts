/**
 * Replay windows in Redis Streams (`state.store: redis`), so any gateway process can replay a
 * stream another one relayed. One stream key per window, entry ids `0-{seq}` (the event's own
 * number: a resume reads `XRANGE key (0-{after} +`), trimmed by the writer's MINID (its caps:
 * events and bytes) and expiring with PEXPIRE; the end marker is an entry with field `end`; the
 * live lease is a key of its own with PX. Writes go on the state's one connection
 * (src/state/redis-connection.ts: no offline queue, so a write while Redis is down fails at once)
 * without being waited for, batched per event-loop turn; at most `MAX_PENDING` are queued or in
 * flight, more are dropped and counted.
 * A tail blocks with XREAD on a connection of its own, so the shared one never waits.
 */
import type { Redis } from 'ioredis';
import type { ReplayWindows, StreamEnd, WindowEvent, WindowRead, WindowTail, WindowWrite } from './window.js';

const MAX_PENDING = 1024;

type Entry = [Buffer, Buffer[]];
type Pipeline = ReturnType<Redis['pipeline']>;

function flushBatch(windows: RedisReplayWindows): void {
  windows.flush();
}

export class RedisReplayWindows implements ReplayWindows {
  private failed = 0;
  private pending = 0;
  private batch: { pipeline: Pipeline; writes: number } | undefined;

  constructor(
    private readonly client: Redis,
    private readonly keyPrefix: string,
  ) {}

  get failures(): number {
    return this.failed;
  }

  private streamKey(key: string): string {
    return `${this.keyPrefix}resume:${key}`;
  }

  private liveKey(key: string): string {
    return `${this.keyPrefix}resume-live:${key}`;
  }

  append(key: string, seq: number, bytes: Buffer, write: WindowWrite): void {
    const k = this.streamKey(key);
    this.send((p) => p.xadd(k, 'MINID', `0-${write.minSeq}`, `0-${seq}`, 'd', bytes).pexpire(k, write.ttlMs));
  }

  close(key: string, seq: number, how: StreamEnd, ttlMs: number): void {
    const k = this.streamKey(key);
    this.send((p) => p.xadd(k, `0-${seq}`, 'end', how).pexpire(k, ttlMs).del(this.liveKey(key)));
  }

  lease(key: string, ms: number): void {
    const live = this.liveKey(key);
    this.send((p) => (ms > 0 ? p.set(live, '1', 'PX', ms) : p.del(live)));
  }

  /**
   * Queues the commands on this tick's pipeline, sent once at the end of the tick (one write for
   * every event relayed in it, whatever the stream), not waited for; a failure is counted, never
   * thrown. At most MAX_PENDING writes are queued or in flight; more are dropped (and counted).
   */
  private send(build: (p: Pipeline) => Pipeline): void {
    if (this.pending >= MAX_PENDING) {
      this.failed++;
      return;
    }
    this.pending++;
    if (!this.batch) {
      this.batch = { pipeline: this.client.pipeline(), writes: 0 };
      setImmediate(flushBatch, this);
    }
    build(this.batch.pipeline);
    this.batch.writes++;
  }

  flush(): void {
    const batch = this.batch;
    if (!batch) return;
    this.batch = undefined;
    batch.pipeline
      .exec()
      .then(
        (results) => {
          if (results?.some(([err]) => err)) this.failed++;
        },
        () => (this.failed += batch.writes),
      )
      .finally(() => (this.pending -= batch.writes));
  }

  async read(key: string, after: number): Promise<WindowRead> {
    const k = this.streamKey(key);
    const [[rangeErr, range], [liveErr, live]] = (await this.client
      .pipeline()
      .xrangeBuffer(k, `(0-${after}`, '+')
      .exists(this.liveKey(key))
      .exec()) as [[Error | null, Entry[]], [Error | null, number]];
    if (rangeErr || liveErr) throw rangeErr ?? liveErr;
    const found = range.length > 0 || (await this.client.exists(k)) === 1;
    return { found, ...entriesOf(range), live: live === 1 };
  }

  tail(key: string): WindowTail {
    const k = this.streamKey(key);
    let conn: Redis | undefined;
    return {
      wait: async (after, ms) => {
        if (!conn) {
          conn = this.client.duplicate({ commandTimeout: ms + 2000, enableOfflineQueue: true });
          conn.on('error', () => {}); // a failed wait ends in follow.ts; no unhandled 'error' event
        }
        await conn.xread('BLOCK', ms, 'STREAMS', k, `0-${after}`);
      },
      close: () => conn?.disconnect(),
    };
  }
}

function entriesOf(range: Entry[]): { events: WindowEvent[]; ended: StreamEnd | undefined } {
  const events: WindowEvent[] = [];
  let ended: StreamEnd | undefined;
  for (const [id, fields] of range) {
    const seq = Number(id.toString('latin1').slice(2));
    const name = fields[0]?.toString('latin1');
    if (name === 'end') ended = fields[1]?.toString('latin1') === 'cut' ? 'cut' : 'end';
    else if (name === 'd' && fields[1]) events.push({ seq, bytes: fields[1] });
  }
  return { events, ended };
}
