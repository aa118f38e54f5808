/**
 * Replay windows in this process (`state.store: memory`): one lru-cache of streams bounded by
 * `resume.memoryStreams`, each window capped by its agent's `resume.window` (events, bytes: the
 * writer says which is the oldest to keep) and TTL. A tail is a listener woken by the next write.
 */
import { LRUCache } from 'lru-cache';
import type { ReplayWindows, StreamEnd, WindowEvent, WindowRead, WindowTail, WindowWrite } from './window.js';

interface MemoryWindow {
  events: WindowEvent[];
  ended: StreamEnd | undefined;
  liveUntil: number;
  expiresAt: number;
  readonly waiters: Set<() => void>;
}

const NOT_FOUND: WindowRead = { found: false, events: [], ended: undefined, live: false };

export class MemoryReplayWindows implements ReplayWindows {
  readonly failures = 0;
  private readonly windows: LRUCache<string, MemoryWindow>;

  constructor(maxStreams: number) {
    this.windows = new LRUCache({ max: maxStreams });
  }

  private windowOf(key: string, ttlMs: number): MemoryWindow {
    let w = this.windows.get(key);
    if (!w) {
      w = { events: [], ended: undefined, liveUntil: 0, expiresAt: 0, waiters: new Set() };
      this.windows.set(key, w);
    }
    w.expiresAt = Date.now() + ttlMs;
    return w;
  }

  append(key: string, seq: number, bytes: Buffer, write: WindowWrite): void {
    const w = this.windowOf(key, write.ttlMs);
    w.events.push({ seq, bytes });
    let drop = 0;
    while (drop < w.events.length && w.events[drop]!.seq < write.minSeq) drop++;
    if (drop > 0) w.events = w.events.slice(drop);
    wake(w);
  }

  close(key: string, _seq: number, how: StreamEnd, ttlMs: number): void {
    const w = this.windowOf(key, ttlMs);
    w.ended = how;
    w.liveUntil = 0;
    wake(w);
  }

  lease(key: string, ms: number): void {
    const w = this.windows.get(key);
    if (!w) return;
    w.liveUntil = ms > 0 ? Date.now() + ms : 0;
    if (ms === 0) wake(w);
  }

  read(key: string, after: number): Promise<WindowRead> {
    const w = this.live(key);
    if (!w) return Promise.resolve(NOT_FOUND);
    const events = w.events.filter((e) => e.seq > after);
    return Promise.resolve({ found: true, events, ended: w.ended, live: w.liveUntil > Date.now() });
  }

  tail(key: string): WindowTail {
    let wakeUp: (() => void) | undefined;
    return {
      wait: (after, ms) =>
        new Promise<void>((resolve) => {
          const w = this.live(key);
          const last = w?.events.at(-1)?.seq ?? 0;
          if (!w || w.ended || last > after) return resolve();
          const timer = setTimeout(done, ms);
          function done(): void {
            clearTimeout(timer);
            w!.waiters.delete(done);
            resolve();
          }
          wakeUp = done;
          w.waiters.add(done);
        }),
      close: () => wakeUp?.(),
    };
  }

  /** The window unless its TTL ran out (then it goes). */
  private live(key: string): MemoryWindow | undefined {
    const w = this.windows.get(key);
    if (w && w.expiresAt <= Date.now()) {
      this.windows.delete(key);
      return undefined;
    }
    return w;
  }
}

function wake(w: MemoryWindow): void {
  for (const waiter of [...w.waiters]) waiter();
}
