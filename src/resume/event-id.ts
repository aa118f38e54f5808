/**
 * The `id:` the gateway gives each event of a resumable stream (docs/fleet.md "Stream resume"):
 * `{task}.{stream}.{seq}` — the task id in base64url (any characters, none of them a line end or
 * a dot), a random stream tag, and the event's number in that stream from 1. It names the window
 * by itself, so any gateway process can find it; the random tag makes an id unguessable from a
 * task id alone, so a resume reaches only the windows of streams whose events the caller saw.
 */
import { randomBytes } from 'node:crypto';

export interface EventId {
  readonly taskId: string;
  /** The stream's random tag (base64url). */
  readonly stream: string;
  readonly seq: number;
}

const TAG = /^[A-Za-z0-9_-]{8,32}$/;
const B64URL = /^[A-Za-z0-9_-]+$/;

export function newStreamTag(): string {
  return randomBytes(9).toString('base64url');
}

/** The id's text, ASCII only (W3C: an id may not contain NUL, LF or CR). */
export function formatEventId(taskId: string, stream: string, seq: number): string {
  return `${formatStreamName(taskId, stream)}.${seq}`;
}

/** The stream's name, `{task}.{stream}`: an event id without its number (a gRPC stream's header metadata). */
export function formatStreamName(taskId: string, stream: string): string {
  return `${Buffer.from(taskId, 'utf8').toString('base64url')}.${stream}`;
}

/** The `id: …` field line for an event. */
export function eventIdLine(taskId: string, stream: string, seq: number): Buffer {
  return Buffer.from(`id: ${formatEventId(taskId, stream, seq)}\n`, 'latin1');
}

/** A `Last-Event-ID` the gateway gave, or undefined (not one of its ids). */
export function parseEventId(text: string | undefined): EventId | undefined {
  if (text === undefined || text.length > 1024) return undefined;
  const parts = text.trim().split('.');
  if (parts.length !== 3) return undefined;
  const [task, stream, seqText] = parts as [string, string, string];
  if (!B64URL.test(task) || !TAG.test(stream) || !/^[1-9][0-9]{0,14}$/.test(seqText)) return undefined;
  const taskId = Buffer.from(task, 'base64url').toString('utf8');
  if (taskId.length === 0) return undefined;
  return { taskId, stream, seq: Number(seqText) };
}
