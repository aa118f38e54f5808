/**
 * The timeout rescue on the gRPC binding, as pipeline.ts calls it: the steps of
 * src/rescue/rescue.ts over the gRPC caller (rescue-caller.ts: GetTask polls, no subscription)
 * and answer (rescue-answer.ts: metadata `a2a-gateway-rescue: settled` or `deadline`). The
 * client's deadline is its `grpc-timeout`, or `X-A2A-Gateway-Timeout`, capped by
 * `timeoutRescue.clientTimeout`; the answer comes the margin before it.
 */
import type { OutgoingHttpHeaders } from 'node:http2';
import type { BlockingSend } from '../../rescue/decision.js';
import { clientTimeoutMs, TIMEOUT_HEADER } from '../../rescue/deadline.js';
import { resolveStrategy } from '../../rescue/policy.js';
import { rescue } from '../../rescue/rescue.js';
import type { TaskTracker } from '../../tasks/tracker.js';
import type { GrpcCall } from './call.js';
import type { GrpcChannel } from './channel.js';
import { GrpcAnswer } from './rescue-answer.js';
import { GrpcCaller } from './rescue-caller.js';

export interface GrpcRescueRequest {
  readonly call: GrpcCall;
  /** The blocking send, as decided on the call's facts (src/rescue/decision.ts). */
  readonly send: BlockingSend;
  /** The client's request body: one length-prefixed SendMessageRequest. */
  readonly body: Buffer;
  readonly channel: GrpcChannel;
  /** The upstream headers for an rpc at `path`, with `leftMs` as its deadline. */
  readonly headers: (path: string, leftMs: number) => OutgoingHttpHeaders;
  /** Epoch ms of the client's `grpc-timeout`, if it gave one. */
  readonly deadline: number | undefined;
  readonly tracker: TaskTracker;
  /** Largest message read from the agent. */
  readonly maxBytes: number;
}

export function rescueGrpcCall(req: GrpcRescueRequest): Promise<void> {
  const { call, send } = req;
  const { exchange } = call;
  const policy = exchange.upstream.config.timeoutRescue;
  const stated = clientTimeoutMs(call.req.headers[TIMEOUT_HEADER], policy.clientTimeout);
  const grpcLeft = req.deadline === undefined ? Infinity : req.deadline - exchange.record.startedAt;
  const answerBy = exchange.record.startedAt + Math.min(stated, grpcLeft) - policy.margin;
  const { body, channel, headers, maxBytes } = req;
  return rescue({
    exchange,
    send,
    caller: new GrpcCaller({ call, send, body, channel, headers, maxBytes, answerBy, margin: policy.margin }),
    answer: new GrpcAnswer(call, send.version),
    policy,
    // No card is read here: `auto` polls, and so does any strategy the gRPC caller cannot do.
    strategy: resolveStrategy(policy.strategy, undefined),
    answerBy,
    tracker: req.tracker,
  });
}
