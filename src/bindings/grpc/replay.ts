/**
 * Pipeline step 5b on the gRPC binding: a duplicate of an idempotent send answered with the
 * first's outcome (src/idempotency/replay.ts) — a Task through the rescue's gRPC caller and
 * answer (rescue-caller.ts: GetTask polls; rescue-answer.ts: a SendMessageResponse), or the stored
 * Message as the agent's answer carried it (its messages, then `grpc-status: 0`). Metadata
 * `a2a-gateway-idempotent: replayed` either way. The deadline is the rescue's (rescue.ts).
 */
import type { OutgoingHttpHeaders } from 'node:http2';
import { clientTimeoutMs, TIMEOUT_HEADER } from '../../rescue/deadline.js';
import { GatewayError } from '../../errors/gateway-error.js';
import type { TaskTracker } from '../../tasks/tracker.js';
import type { Outcome } from '../../idempotency/store.js';
import { IDEMPOTENT_HEADER, replaySendOf, replayTask } from '../../idempotency/replay.js';
import type { GrpcCall } from './call.js';
import type { GrpcChannel } from './channel.js';
import { GrpcAnswer } from './rescue-answer.js';
import { GrpcCaller } from './rescue-caller.js';
import type { UnaryReply } from './unary-call.js';

export interface GrpcReplayRequest {
  readonly call: GrpcCall;
  readonly outcome: Outcome;
  /** The client's request body: one length-prefixed SendMessageRequest. */
  readonly body: Buffer;
  readonly channel: () => Promise<GrpcChannel>;
  /** The upstream headers for an rpc at `path` on `channel`, with `leftMs` as its deadline. */
  readonly headers: (channel: GrpcChannel, path: string, leftMs: number) => OutgoingHttpHeaders;
  /** Epoch ms of the client's `grpc-timeout`, if it gave one. */
  readonly deadline: number | undefined;
  readonly tracker: TaskTracker;
  readonly maxBytes: number;
}

export async function replayGrpcCall(req: GrpcReplayRequest): Promise<void> {
  const { call, outcome } = req;
  const { exchange } = call;
  const send = replaySendOf(exchange.request!);
  if (!send) throw new GatewayError('INTERNAL', 'the duplicate send could not be read');
  const answer = new GrpcAnswer(call, send.version);
  const head = { 'content-type': 'application/grpc', [IDEMPOTENT_HEADER]: 'replayed' };
  if (outcome.kind === 'message') {
    const chunks = [Buffer.from(outcome.body, 'base64')];
    answer.passOn(reply({ ...head, 'content-type': outcome.contentType || 'application/grpc' }, chunks));
    exchange.finish();
    return;
  }
  const policy = exchange.upstream.config.timeoutRescue;
  const stated = clientTimeoutMs(call.req.headers[TIMEOUT_HEADER], policy.clientTimeout);
  const grpcLeft = req.deadline === undefined ? Infinity : req.deadline - exchange.record.startedAt;
  const answerBy = exchange.record.startedAt + Math.min(stated, grpcLeft) - policy.margin;
  const channel = await req.channel();
  const headers = (path: string, leftMs: number) => req.headers(channel, path, leftMs);
  const caller = new GrpcCaller({
    call,
    send,
    body: req.body,
    channel,
    headers,
    maxBytes: req.maxBytes,
    answerBy,
    margin: policy.margin,
  });
  const envelope = reply(head, []);
  await replayTask({ exchange, send, caller, answer, envelope, answerBy, tracker: req.tracker }, outcome.taskId);
}

/** A reply as the answer side writes it: these headers, these messages, status OK. */
function reply(headers: Record<string, string>, chunks: Buffer[]): UnaryReply {
  return { headers, chunks, message: undefined, trailers: { 'grpc-status': '0' }, status: 0 };
}
