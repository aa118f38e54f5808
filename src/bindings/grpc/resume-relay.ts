/**
 * The relay's part in stream resume on gRPC (docs/fleet.md "Stream resume"): the agent's response
 * headers are held until its first message is read (or its trailers come), so they go out naming
 * the stream (`a2a-gateway-stream`, src/resume/grpc-stream.ts) — the task is only known from that
 * message. The hold is bounded by that one message (the window's bytes cap; a larger one names
 * nothing) and costs the client nothing it could have used: headers alone carry no answer. Every
 * chunk is framed into the window and relayed untouched. The trailers end the window: `end` at
 * grpc-status 0, else `cut` (a resume then answers UNAVAILABLE rather than replay an error it
 * cannot reproduce).
 */
import type { ResponseHeaders } from '../../exchange/exchange.js';
import { STREAM_HEADER, type GrpcResumableStream } from '../../resume/grpc-stream.js';
import type { GrpcCall } from './call.js';

type Write = (chunk: Buffer) => void;

export class ResumableRelay {
  private head: { status: number; headers: ResponseHeaders } | undefined;
  private held: Buffer[] = [];

  constructor(
    readonly stream: GrpcResumableStream,
    private readonly graceMs: number,
    private readonly call: GrpcCall,
  ) {}

  holdHead(status: number, headers: ResponseHeaders): void {
    this.head = { status, headers };
  }

  data(chunk: Buffer, write: Write): void {
    this.stream.push(chunk);
    if (this.head === undefined) return write(chunk);
    this.held.push(chunk);
    if (this.stream.decided) this.release(write);
  }

  trailers(trailers: ResponseHeaders, write: Write): void {
    this.release(write);
    this.stream.end(String(trailers['grpc-status']) === '0' ? 'end' : 'cut');
  }

  /** The held head goes out, naming the stream if its first message named a task, then the held chunks. */
  release(write: Write): void {
    const head = this.head;
    if (head === undefined) return;
    this.head = undefined;
    const { name } = this.stream;
    const headers = name === undefined ? head.headers : { ...head.headers, [STREAM_HEADER]: name };
    this.call.exchange.emit('onResponseStart', head.status, headers);
    const { res } = this.call;
    if (!res.stream.destroyed) res.writeHead(head.status, headers);
    const held = this.held;
    this.held = [];
    for (const chunk of held) write(chunk);
  }

  /** How long to read on after the client leaves: only a named stream can be resumed. */
  graceFor(): number {
    return this.stream.name === undefined ? 0 : this.graceMs;
  }
}
