/**
 * The bounded queue between the forwarding path and Redis (README "Scaling out"): a write is
 * queued and the request goes on; batches go out in one pipeline each while Redis is up and
 * wait while it is down (the gateway catches up when it returns). Past `maxPending` a write is
 * dropped and counted, so memory stays bounded however long Redis is away. Every write the store
 * makes is idempotent (a state seen twice is one transition), so a batch whose fate is unknown
 * (the connection dropped under it) is simply sent again.
 */
export interface QueuedWrite<T> {
  /** Sends the write in `batch` (one pipeline); the same order as queued. */
  readonly send: (batch: WriteBatch) => void;
  readonly done: (result: T | undefined) => void;
  attempts: number;
}

/** What a batch adds its commands to (an ioredis pipeline). */
export interface WriteBatch {
  exec(): Promise<Array<[Error | null, unknown]> | null>;
}

export interface WriteQueueOptions {
  readonly maxPending: number;
  readonly batchSize?: number;
  /** Tries per write before it is dropped (while connected: a timeout, a script error). */
  readonly maxAttempts?: number;
  readonly ready: () => boolean;
  readonly batch: () => WriteBatch;
  /** A write given up on (queue full, or failed every attempt). */
  readonly dropped: (err: unknown) => void;
}

export class WriteQueue {
  private readonly pending: QueuedWrite<unknown>[] = [];
  private flushing = false;
  /** Writes sent and not answered yet. */
  private sending = 0;

  constructor(private readonly options: WriteQueueOptions) {}

  /** Writes not yet answered by Redis: queued or on their way. */
  get size(): number {
    return this.pending.length + this.sending;
  }

  /** Queues `send`; `done` gets the reply (parsed by `parse`), or undefined if the write was dropped. */
  add<T>(send: (batch: WriteBatch) => void, parse: (reply: unknown) => T, done: (result: T | undefined) => void) {
    if (this.size >= this.options.maxPending) {
      this.options.dropped(new Error(`${this.options.maxPending} writes already queued (state.redis.maxPending)`));
      done(undefined);
      return;
    }
    this.pending.push({ send, done: (reply) => done(reply === undefined ? undefined : parse(reply)), attempts: 0 });
    this.flush();
  }

  /** Sends what is queued, batch after batch, while Redis is ready; call again when it is. */
  flush(): void {
    if (this.flushing || this.pending.length === 0 || !this.options.ready()) return;
    this.flushing = true;
    void this.drain().finally(() => {
      this.flushing = false;
      if (this.pending.length > 0 && this.options.ready()) this.flush();
    });
  }

  private async drain(): Promise<void> {
    while (this.pending.length > 0 && this.options.ready()) {
      const writes = this.pending.splice(0, this.options.batchSize ?? 128);
      const batch = this.options.batch();
      for (const write of writes) write.send(batch);
      this.sending = writes.length;
      const replies = await batch.exec().catch(() => null);
      this.sending = 0;
      const retry: QueuedWrite<unknown>[] = [];
      writes.forEach((write, i) => {
        const [err, reply] = replies?.[i] ?? [new Error('the connection to Redis failed'), undefined];
        if (!err) return write.done(reply);
        // Down: wait for the reconnect without counting a try. Up: a try is spent.
        if (this.options.ready() && ++write.attempts >= (this.options.maxAttempts ?? 3)) {
          this.options.dropped(err);
          write.done(undefined);
        } else retry.push(write);
      });
      this.pending.unshift(...retry);
    }
  }
}
