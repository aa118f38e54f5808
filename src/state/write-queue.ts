/**
 * The bounded queue between the forwarding path and Redis (docs/deploying.md "Scaling out"): a write is
 * queued and the request goes on; what is queued goes out as one command (one script call for
 * the whole batch: a round trip and a command's overhead shared by every write in it) while Redis
 * is up, and waits while it is down, so the gateway catches up when Redis returns. Past
 * `maxPending` a write is dropped and counted, so memory stays bounded however long Redis is
 * away. Every write the store makes is idempotent (a state seen twice is one transition), so a
 * batch whose fate is unknown (the connection dropped under it) is simply sent again.
 */
export interface QueuedWrite {
  /** The write's arguments, appended to the batch's. */
  readonly args: readonly string[];
  /** Its reply, or undefined when it was dropped. */
  readonly done: (reply: unknown) => void;
  attempts: number;
}

export interface WriteQueueOptions {
  readonly maxPending: number;
  /** Writes per command. */
  readonly batchSize?: number;
  /** Tries per write before it is dropped (while connected: a timeout, a script error). */
  readonly maxAttempts?: number;
  readonly ready: () => boolean;
  /** Sends the writes as one command; resolves with one reply per write, in order. */
  readonly send: (writes: readonly QueuedWrite[]) => Promise<readonly unknown[]>;
  /** A write given up on (queue full, or failed every attempt). */
  readonly dropped: (err: unknown) => void;
}

export class WriteQueue {
  private readonly pending: QueuedWrite[] = [];
  private flushing = false;
  /** Writes sent and not answered yet. */
  private sending = 0;

  constructor(private readonly options: WriteQueueOptions) {}

  /** Writes not yet answered by Redis: queued or on their way. */
  get size(): number {
    return this.pending.length + this.sending;
  }

  /** Queues a write; `done` gets its reply, or undefined if the write was dropped. */
  add(args: readonly string[], done: (reply: unknown) => void): void {
    if (this.size >= this.options.maxPending) {
      this.options.dropped(new Error(`${this.options.maxPending} writes already queued (state.redis.maxPending)`));
      done(undefined);
      return;
    }
    this.pending.push({ args, done, attempts: 0 });
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
      this.sending = writes.length;
      let replies: readonly unknown[] | undefined;
      let failure: unknown;
      try {
        replies = await this.options.send(writes);
      } catch (err) {
        failure = err;
      }
      this.sending = 0;
      if (replies) writes.forEach((write, i) => write.done(replies[i]));
      else this.pending.unshift(...this.retries(writes, failure));
    }
  }

  /** Down: every write waits for the reconnect without spending a try. Up: a try is spent. */
  private retries(writes: QueuedWrite[], failure: unknown): QueuedWrite[] {
    if (!this.options.ready()) return writes;
    return writes.filter((write) => {
      if (++write.attempts < (this.options.maxAttempts ?? 3)) return true;
      this.options.dropped(failure);
      write.done(undefined);
      return false;
    });
  }
}
