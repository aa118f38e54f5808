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
import type { ReplayWindows, StreamEnd } from './window.js';
import { ownCopy, WindowWriter, type ResumeLimits } from './window-writer.js';

export { LEASE_MS, type ResumeLimits } from './window-writer.js';

/** Events parsed to find the task before giving up (a stream that never names one). */
const PROBES = 4;

export class ResumableStream {
  private readonly framer: SseFramer;
  private readonly tag = newStreamTag();
  private readonly writer: WindowWriter;
  private taskId: string | undefined;
  private probes = 0;

  constructor(
    agent: string,
    private readonly binding: JsonBinding,
    windows: ReplayWindows,
    limits: ResumeLimits,
  ) {
    this.framer = createSseFramer(limits.bytes);
    this.writer = new WindowWriter(agent, windows, limits);
  }

  /** The task is known: the stream can be resumed (and read on after the client leaves). */
  get named(): boolean {
    return this.writer.named;
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
    if (!frame.hasData || this.writer.isEnded) return frame.bytes;
    if (!this.writer.named && !this.name(frame)) return frame.bytes;
    const seq = this.writer.append(ownCopy(frame.bytes));
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
    this.writer.name(taskId, this.tag);
    return true;
  }

  renewLease(): void {
    this.writer.renewLease();
  }

  /** The agent's stream is over: its end marker; returns the bytes of an event it ended inside of. */
  end(how: StreamEnd): Buffer {
    this.writer.end(how);
    return this.framer.rest();
  }
}
