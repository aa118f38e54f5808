/**
 * One timer for every open SSE stream with the same keepalive period, instead of a setInterval
 * per stream ("light streams"). The streams of one period sit in a doubly linked list
 * in the order of their last activity, which is also the order in which they fall due (every
 * entry's due time is its last activity plus the same period): `touch` moves an entry to the tail
 * in O(1) with no allocation, and the one timer only ever needs the head's due time. When it
 * fires, every entry due is told (`onQuiet`) and goes back to the tail, due one period later —
 * the same schedule as a refreshed setInterval per stream, with one timer per period.
 *
 * The timer does not keep the process alive (unref), as the per-stream intervals did not.
 */

/** What the wheel holds: the entry is its own list node (no wrapper object per stream). */
export interface QuietEntry {
  /** Called after a full period with no `touch`; the entry stays on the wheel for the next one. */
  onQuiet(): void;
  /** The wheel's bookkeeping: which wheel holds it, its neighbours, when it falls due. */
  quietWheel: KeepaliveWheel | undefined;
  quietPrev: QuietEntry | undefined;
  quietNext: QuietEntry | undefined;
  quietDue: number;
}

export type Clock = () => number;

const monotonic: Clock = () => performance.now();

/** A timer that fires this close to an entry's due time counts it as due (timers round to ms). */
const SLACK_MS = 1;

export class KeepaliveWheel {
  private head: QuietEntry | undefined;
  private tail: QuietEntry | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** When the armed timer fires (clock time), to tell whether it must be moved earlier. */
  private timerAt = Infinity;
  private count = 0;
  /** Under a period of a millisecond or two the slack must stay below it (or a sweep never ends). */
  private readonly slack: number;

  constructor(
    /** The quiet time after which, and between which, an entry is told. */
    readonly periodMs: number,
    private readonly clock: Clock = monotonic,
  ) {
    this.slack = Math.min(SLACK_MS, periodMs / 2);
  }

  /** Entries on the wheel. */
  get size(): number {
    return this.count;
  }

  /** Puts `entry` on the wheel, due one period from now. */
  add(entry: QuietEntry): void {
    if (entry.quietWheel) entry.quietWheel.remove(entry);
    entry.quietWheel = this;
    this.count++;
    this.append(entry, this.clock() + this.periodMs);
    this.arm();
  }

  /** Activity on `entry`: its quiet time starts again from now. Cheap: called per chunk. */
  touch(entry: QuietEntry): void {
    if (entry.quietWheel !== this) return;
    const due = this.clock() + this.periodMs;
    if (this.tail !== entry) {
      this.unlink(entry);
      this.append(entry, due);
    } else {
      entry.quietDue = due;
    }
    // The timer (armed for the old head) stays: firing early it finds nothing due and re-arms.
  }

  /** Takes `entry` off the wheel (the stream ended). Safe to call twice. */
  remove(entry: QuietEntry): void {
    if (entry.quietWheel !== this) return;
    this.unlink(entry);
    entry.quietWheel = undefined;
    this.count--;
    if (this.count === 0) this.disarm();
  }

  private append(entry: QuietEntry, due: number): void {
    entry.quietDue = due;
    entry.quietPrev = this.tail;
    entry.quietNext = undefined;
    if (this.tail) this.tail.quietNext = entry;
    else this.head = entry;
    this.tail = entry;
  }

  private unlink(entry: QuietEntry): void {
    const { quietPrev: prev, quietNext: next } = entry;
    if (prev) prev.quietNext = next;
    else this.head = next;
    if (next) next.quietPrev = prev;
    else this.tail = prev;
    entry.quietPrev = undefined;
    entry.quietNext = undefined;
  }

  /** Makes sure the timer fires no later than the head's due time. */
  private arm(): void {
    const head = this.head;
    if (!head) return;
    if (this.timer && this.timerAt <= head.quietDue) return;
    this.disarm();
    const delay = Math.max(0, head.quietDue - this.clock());
    this.timerAt = head.quietDue;
    this.timer = setTimeout(this.sweep, Math.ceil(delay));
    this.timer.unref();
  }

  private disarm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Infinity;
  }

  /** The one timer: every entry due is told and goes back to the tail, due a period later. */
  private readonly sweep = (): void => {
    this.timer = undefined;
    this.timerAt = Infinity;
    const now = this.clock();
    // Entries put back during this sweep are due a full period later (more than the slack): the
    // loop stops at them.
    let entry = this.head;
    while (entry && entry.quietDue <= now + this.slack) {
      this.unlink(entry);
      this.append(entry, now + this.periodMs);
      try {
        entry.onQuiet();
      } catch {
        // One stream's failure must not stop the others' keepalives.
      }
      entry = this.head;
    }
    this.arm();
  };
}

/** The shared wheels, one per keepalive period in use (a handful: one per configured value). */
const wheels = new Map<number, KeepaliveWheel>();

export function keepaliveWheel(periodMs: number): KeepaliveWheel {
  let wheel = wheels.get(periodMs);
  if (!wheel) {
    wheel = new KeepaliveWheel(periodMs);
    wheels.set(periodMs, wheel);
  }
  return wheel;
}
