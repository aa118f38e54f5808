/**
 * One resumable gRPC stream as the relay passes it on (docs/fleet.md "Stream resume"). gRPC
 * messages have no room for an id and the gateway never alters them, so the stream is named once,
 * in its response header metadata (`a2a-gateway-stream: {task}.{stream}`, event-id.ts), and each
 * length-prefixed message (gRPC over HTTP/2, "Length-Prefixed-Message";
 * src/codec/grpc-frames.ts) is event n of its window, n counted from 1: a client that got n
 * messages resumes with `last-event-id: {task}.{stream}.{n}`. The chunks themselves go to the
 * client untouched; the window keeps each message's frame (its 5-byte prefix and its bytes).
 *
 * The task is read from the first message (a StreamResponse opens with the Task or an update of
 * it, src/a2a/grpc/response-message.ts); a stream whose first message names none (a direct
 * Message), or is compressed, is not resumable and is not kept. A message past the window's
 * bytes cap cannot be kept either: the window is ended as cut there (a resume after it gets
 * UNAVAILABLE and follows the task with SubscribeToTask).
 */
import { GrpcFrameReader, GRPC_PREFIX_BYTES } from '../codec/grpc-frames.js';
import { readOneofPayload } from '../a2a/grpc/response-message.js';
import { tryDecode } from '../a2a/grpc/proto-read.js';
import { formatStreamName, newStreamTag } from './event-id.js';
import type { ReplayWindows, StreamEnd } from './window.js';
import { WindowWriter, type ResumeLimits } from './window-writer.js';

/** The response header that names a resumable gRPC stream. */
export const STREAM_HEADER = 'a2a-gateway-stream';

export class GrpcResumableStream {
  private readonly reader: GrpcFrameReader;
  private readonly writer: WindowWriter;
  private readonly tag = newStreamTag();
  /** The stream's name once its first message named a task. */
  name: string | undefined;
  /** The first message has been read: the stream is named, or never will be. */
  decided = false;
  private readonly onMessage = (message: Uint8Array, compressed: boolean): void => this.keep(message, compressed);

  constructor(agent: string, windows: ReplayWindows, limits: ResumeLimits) {
    this.reader = new GrpcFrameReader(limits.bytes);
    this.writer = new WindowWriter(agent, windows, limits);
  }

  /** Frames one chunk of the agent's answer into the window. */
  push(chunk: Uint8Array): void {
    if (this.decided && !this.writer.named) return; // not resumable: nothing is read
    if (this.writer.isEnded) return;
    const skipped = this.reader.skipped;
    this.reader.push(chunk, this.onMessage);
    if (this.reader.skipped === skipped) return;
    this.decided = true; // a first message too large to keep names nothing
    this.writer.end('cut');
  }

  private keep(message: Uint8Array, compressed: boolean): void {
    if (!this.decided) this.nameFrom(message, compressed);
    if (!this.writer.named || this.writer.isEnded) return;
    this.writer.append(frameOf(message, compressed));
  }

  private nameFrom(message: Uint8Array, compressed: boolean): void {
    this.decided = true;
    const taskId = compressed ? undefined : tryDecode(() => readOneofPayload(message, true))?.taskId;
    if (!taskId) return;
    this.writer.name(taskId, this.tag);
    this.name = formatStreamName(taskId, this.tag);
  }

  /** The agent's stream is over: the end marker. Ended inside a message, it is a cut whatever the status said. */
  end(how: StreamEnd): void {
    this.writer.end(this.reader.midMessage ? 'cut' : how);
  }
}

/** The message's frame as it came: flag, big-endian length, bytes (a copy the window may keep). */
function frameOf(message: Uint8Array, compressed: boolean): Buffer {
  const frame = Buffer.allocUnsafeSlow(GRPC_PREFIX_BYTES + message.length);
  frame[0] = compressed ? 1 : 0;
  frame.writeUInt32BE(message.length, 1);
  frame.set(message, GRPC_PREFIX_BYTES);
  return frame;
}
