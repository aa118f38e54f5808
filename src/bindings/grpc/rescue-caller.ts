/**
 * The timeout rescue's upstream calls on the gRPC binding (src/rescue/ports.ts): unary calls on
 * the agent's channel (unary-call.ts), the messages built from bytes (src/a2a/grpc/rescue-wire.ts),
 * each answer decoded by the response decoder. No subscription or stream: the rescue polls
 * (long-polls an agent whose tasks carry a generation, wire-reference §7.4).
 */
import type { OutgoingHttpHeaders } from 'node:http2';
import { createResponseDecoder } from '../../a2a/response.js';
import { getTaskRequest, taskGeneration, withReturnImmediately } from '../../a2a/grpc/rescue-wire.js';
import { encodeGrpcFrame, GrpcFrameReader } from '../../codec/grpc-frames.js';
import type { BlockingSend } from '../../rescue/decision.js';
import type { Reply, UpstreamCaller } from '../../rescue/ports.js';
import { GatewayError } from '../../errors/gateway-error.js';
import type { GrpcCall } from './call.js';
import type { GrpcChannel } from './channel.js';
import { callUnary, type UnaryReply } from './unary-call.js';

export interface GrpcCallerOptions {
  readonly call: GrpcCall;
  readonly send: BlockingSend;
  /** The client's request body: one length-prefixed SendMessageRequest. */
  readonly body: Buffer;
  readonly channel: GrpcChannel;
  /** The upstream headers for an rpc at `path`, with `leftMs` as its deadline. */
  readonly headers: (path: string, leftMs: number) => OutgoingHttpHeaders;
  /** Largest message read from the agent. */
  readonly maxBytes: number;
  /** Epoch ms by which the client is answered; each call's `grpc-timeout` ends `margin` later. */
  readonly answerBy: number;
  readonly margin: number;
}

/** The Task bytes (a GetTask answer's message) are what the answer side puts in its reply. */
export class GrpcCaller implements UpstreamCaller<UnaryReply, Uint8Array> {
  constructor(private readonly o: GrpcCallerOptions) {}

  async sendNonBlocking(signal: AbortSignal): Promise<Reply<UnaryReply, Uint8Array>> {
    const message = onlyMessage(this.o.body, this.o.maxBytes);
    const nonBlocking = message && withReturnImmediately(message, this.o.send.version);
    if (!nonBlocking)
      throw new GatewayError('REQUEST_INVALID', 'a SendMessage request is one uncompressed protobuf message');
    const reply = await this.unary(this.o.call.req.url, encodeGrpcFrame(nonBlocking), signal);
    return this.replyOf(reply, 'SendMessage');
  }

  async getTask(
    taskId: string,
    signal: AbortSignal,
    currentGeneration?: number,
  ): Promise<Reply<UnaryReply, Uint8Array>> {
    const { call, send } = this.o;
    const path = call.req.url.replace(/[^/]+$/, 'GetTask');
    const message = getTaskRequest(taskId, send.version, send.historyLength, currentGeneration);
    return this.replyOf(await this.unary(path, encodeGrpcFrame(message), signal), 'GetTask');
  }

  private unary(path: string, body: Uint8Array, signal: AbortSignal): Promise<UnaryReply> {
    const { answerBy, margin, channel, maxBytes } = this.o;
    const left = Math.max(1, answerBy - Date.now() + margin);
    return callUnary(channel, this.o.headers(path, left), body, maxBytes, signal);
  }

  private replyOf(reply: UnaryReply, operation: 'SendMessage' | 'GetTask'): Reply<UnaryReply, Uint8Array> {
    const decoder = createResponseDecoder(
      { ...this.o.call.exchange.request!, operation },
      { status: 200, contentType: 'application/grpc' },
      { maxBytes: this.o.maxBytes },
    );
    for (const chunk of reply.chunks) decoder.push(chunk);
    const { tag, taskId, state, contextId } = decoder.end({ trailers: reply.trailers });
    const kind = reply.status !== 0 ? 'error' : tag === 'task' ? 'task' : tag === 'message' ? 'message' : 'other';
    // GetTask answers the Task itself (both protos), which the answer wraps as the agent wrote it.
    const task = kind === 'task' && operation === 'GetTask' ? reply.message : undefined;
    const generation =
      kind === 'task' && this.o.send.version === '1.0' && reply.message
        ? taskGeneration(reply.message, operation)
        : undefined;
    return { kind, raw: reply, taskId, state, contextId, task, generation };
  }
}

/** The one message of a request body, or undefined when it is not exactly one uncompressed message. */
function onlyMessage(body: Buffer, maxBytes: number): Uint8Array | undefined {
  const reader = new GrpcFrameReader(maxBytes);
  const messages: Uint8Array[] = [];
  let compressed = false;
  reader.push(body, (message, c) => {
    messages.push(message);
    compressed ||= c;
  });
  return messages.length === 1 && !compressed && !reader.midMessage ? messages[0] : undefined;
}
