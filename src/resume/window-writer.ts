/**
 * The write side of one stream's replay window (docs/fleet.md "Stream resume"), the same for
 * every binding: events numbered from 1 and appended as given, the window's caps (events and
 * bytes, the oldest go first) tracked as the lowest number it keeps, the live lease renewed while
 * the agent's stream is read, and the end marker once. What an event is — an SSE event
 * (stream-ids.ts) or a gRPC length-prefixed message (grpc-stream.ts) — is the caller's.
 */
import { windowKey, type ReplayWindows, type StreamEnd } from './window.js';

export interface ResumeLimits {
  readonly events: number;
  readonly bytes: number;
  readonly ttlMs: number;
}

/** How long a live lease lasts without renewal, and how often the reader renews it. */
export const LEASE_MS = 6000;
const RENEW_MS = 2000;

export class WindowWriter {
  private key: string | undefined;
  private seq = 0;
  // Sizes of the events the window keeps, oldest first, for its bytes cap.
  private readonly sizes: number[] = [];
  private keptBytes = 0;
  private minSeq = 1;
  private renew: NodeJS.Timeout | undefined;
  private ended = false;

  constructor(
    private readonly agent: string,
    private readonly windows: ReplayWindows,
    private readonly limits: ResumeLimits,
  ) {}

  /** The stream's window is named (its task is known): events can be appended. */
  get named(): boolean {
    return this.key !== undefined;
  }

  get isEnded(): boolean {
    return this.ended;
  }

  name(taskId: string, tag: string): void {
    this.key = windowKey(this.agent, taskId, tag);
  }

  /** Appends `bytes` (kept beyond the caller's chunk: pass a copy) as the next event; returns its number. */
  append(bytes: Buffer): number {
    const seq = ++this.seq;
    this.keep(seq, bytes.length);
    this.windows.append(this.key!, seq, bytes, { minSeq: this.minSeq, ttlMs: this.limits.ttlMs });
    if (seq === 1) this.startLease(); // after the first append: the in-memory window exists from then on
    return seq;
  }

  /** Tells resumes elsewhere that this stream is still read, renewed until it ends. */
  private startLease(): void {
    this.windows.lease(this.key!, LEASE_MS);
    this.renew = setInterval(renewLease, RENEW_MS, this);
    this.renew.unref();
  }

  /** The window's caps, as the oldest event number it keeps. */
  private keep(seq: number, size: number): void {
    this.sizes.push(size);
    this.keptBytes += size;
    while (this.sizes.length > this.limits.events || (this.keptBytes > this.limits.bytes && this.sizes.length > 0)) {
      this.keptBytes -= this.sizes.shift()!;
      this.minSeq++;
    }
    if (this.minSeq > seq + 1) this.minSeq = seq + 1;
  }

  renewLease(): void {
    if (this.key && !this.ended) this.windows.lease(this.key, LEASE_MS);
  }

  /** The agent's stream is over: the end marker (once). */
  end(how: StreamEnd): void {
    if (this.ended) return;
    this.ended = true;
    clearInterval(this.renew);
    if (this.key) this.windows.close(this.key, this.seq + 1, how, this.limits.ttlMs);
  }
}

function renewLease(writer: WindowWriter): void {
  writer.renewLease();
}

/** A copy of its own, not a slice of the shared pool (Buffer.from), so a kept event keeps no 8 KiB pool slab alive. */
export function ownCopy(bytes: Uint8Array): Buffer {
  const out = Buffer.allocUnsafeSlow(bytes.length);
  out.set(bytes);
  return out;
}
