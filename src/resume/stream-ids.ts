/**
 * One resumable stream as the relay passes it on (docs/fleet.md "Stream resume"): the agent's
 * bytes framed into events (src/codec/sse-frames.ts), each event with data given an `id:` line
 * just before its closing blank line — after any `id:` the agent sent, so the gateway's is the
 * one a client keeps (W3C: the last `id` field of an event wins) — and appended, as the agent
 * sent it, to the task's replay window. The stream is named at its first event that names a task
 * (A2A streams open with the Task or an update of it, §3.1.2 / wire-reference §1): events
 * before that (a direct Message answer) get no id and are not kept, since there is no task to
 * resume. Only the first few events are parsed to find the task; the rest are never read. The
 * writer reads the task itself rather than waiting for the tracker's `named`
 * (src/tasks/tracker.ts): the id must go on that very event as it is written, and resume must
 * not depend on `inspection.enabled`.
 */
import { createSseFramer, frameData, withFieldLine, type SseFrame, type SseFramer } from '../codec/sse-frames.js';
import { readPayload } from '../a2a/payload.js';
import type { JsonBinding } from '../a2a/operations.js';
import { eventIdLine, newStreamTag } from './event-id.js';
import { windowKey, type ReplayWindows, type StreamEnd } from './window.js';

export interface ResumeLimits {
  readonly events: number;
  readonly bytes: number;
  readonly ttlMs: number;
}

/** How long a live lease lasts without renewal, and how often the reader renews it. */
export const LEASE_MS = 6000;
const RENEW_MS = 2000;
/** Events parsed to find the task before giving up (a stream that never names one). */
const PROBES = 4;

export class ResumableStream {
  private readonly framer: SseFramer;
  private readonly tag = newStreamTag();
  private taskId: string | undefined;
  private key: string | undefined;
  private probes = 0;
  private seq = 0;
  // Sizes of the events the window keeps, oldest first, for its bytes cap.
  private readonly sizes: number[] = [];
  private keptBytes = 0;
  private minSeq = 1;
  private renew: NodeJS.Timeout | undefined;
  private ended = false;

  constructor(
    private readonly agent: string,
    private readonly binding: JsonBinding,
    private readonly windows: ReplayWindows,
    private readonly limits: ResumeLimits,
  ) {
    this.framer = createSseFramer(limits.bytes);
  }

  /** The task is known: the stream can be resumed (and read on after the client leaves). */
  get named(): boolean {
    return this.key !== undefined;
  }

  /** Bytes of an event not ended yet are held (a stream that stops now stops inside an event). */
  get holding(): boolean {
    return this.framer.rest().length > 0;
  }

  /** What to write to the client for `chunk`: whole events, ids added (undefined: nothing yet). */
  push(chunk: Buffer): Buffer | undefined {
    const frames = this.framer.push(chunk);
    if (frames.length === 0) return undefined;
    if (frames.length === 1) return this.pass(frames[0]!);
    return Buffer.concat(frames.map((f) => this.pass(f)));
  }

  private pass(frame: SseFrame): Buffer {
    if (!frame.hasData || this.ended) return frame.bytes;
    if (this.key === undefined && !this.name(frame)) return frame.bytes;
    const seq = ++this.seq;
    // Kept beyond this chunk: a copy of its own, not a slice of the shared pool (Buffer.from), so
    // a kept event keeps no 8 KiB pool slab alive.
    const bytes = Buffer.allocUnsafeSlow(frame.bytes.length);
    frame.bytes.copy(bytes);
    this.keep(seq, bytes.length);
    this.windows.append(this.key!, seq, bytes, { minSeq: this.minSeq, ttlMs: this.limits.ttlMs });
    if (seq === 1) this.startLease(); // after the first append: the in-memory window exists from then on
    return withFieldLine(frame, eventIdLine(this.taskId!, this.tag, seq));
  }

  /** Reads the event for a task id (JSON-RPC `result`, else the body: wire-reference §1.1 / §1.2). */
  private name(frame: SseFrame): boolean {
    if (this.probes >= PROBES) return false;
    this.probes++;
    let doc: unknown;
    try {
      doc = JSON.parse(frameData(frame));
    } catch {
      return false;
    }
    const taskId = readPayload(doc, this.binding === 'jsonrpc' ? 'result' : '', this.binding).taskId;
    if (!taskId) return false;
    this.taskId = taskId;
    this.key = windowKey(this.agent, taskId, this.tag);
    return true;
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

  /** The agent's stream is over: its end marker; returns the bytes of an event it ended inside of. */
  end(how: StreamEnd): Buffer {
    if (!this.ended) {
      this.ended = true;
      clearInterval(this.renew);
      if (this.key) this.windows.close(this.key, this.seq + 1, how, this.limits.ttlMs);
    }
    return this.framer.rest();
  }
}

function renewLease(stream: ResumableStream): void {
  stream.renewLease();
}
