/**
 * The replay window of one resumable stream (docs/fleet.md "Stream resume"): the latest events
 * as the agent sent them (without the gateway's `id:` line), numbered from 1, capped by events and
 * bytes (the oldest go first) and a TTL; an end marker once the agent's stream is over; a live
 * lease while some gateway process reads the agent's stream. Two stores: in this process
 * (`memory-window.ts`) or in Redis Streams (`redis-window.ts`), so another process can replay.
 *
 * Writes never hold the relay: `append`, `close` and `lease` return at once (fire and forget);
 * a write that fails is counted (`failures`) and leaves a gap the resume detects.
 */
export interface WindowEvent {
  readonly seq: number;
  readonly bytes: Buffer;
}

/** How the agent's stream ended: its own end, or cut (an error, or the grace read gave up). */
export type StreamEnd = 'end' | 'cut';

export interface WindowRead {
  /** The window exists (it has events or an end marker, and has not expired). */
  readonly found: boolean;
  /** The kept events after the one asked for, in order. */
  readonly events: readonly WindowEvent[];
  readonly ended: StreamEnd | undefined;
  /** Some gateway process still reads the agent's stream into this window. */
  readonly live: boolean;
}

export interface WindowWrite {
  /** Events with a lower number are dropped from the window (its caps). */
  readonly minSeq: number;
  readonly ttlMs: number;
}

/** Waits for a window to grow: an in-process listener, or XREAD BLOCK on a connection of its own. */
export interface WindowTail {
  /** Resolves when the window has something after `after`, or after `ms`. */
  wait(after: number, ms: number): Promise<void>;
  close(): void;
}

export interface ReplayWindows {
  append(key: string, seq: number, bytes: Buffer, write: WindowWrite): void;
  /** The end marker, numbered after the last event. */
  close(key: string, seq: number, how: StreamEnd, ttlMs: number): void;
  /** The stream is read live for `ms` more (0: no longer). */
  lease(key: string, ms: number): void;
  read(key: string, after: number): Promise<WindowRead>;
  tail(key: string): WindowTail;
  /** Writes that failed or were dropped (a queue past its bound), since start. */
  readonly failures: number;
}

/** The window's key: agent, task and stream tag (src/resume/event-id.ts). */
export function windowKey(agent: string, taskId: string, stream: string): string {
  return `${agent}:${Buffer.from(taskId, 'utf8').toString('base64url')}.${stream}`;
}
