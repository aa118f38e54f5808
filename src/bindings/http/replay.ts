/**
 * Pipeline step 5b on the HTTP bindings: a duplicate of an idempotent send answered with the
 * first's outcome (src/idempotency/replay.ts) — a Task through the rescue's HTTP caller and
 * answer (rescue-caller.ts, rescue-answer.ts) in the duplicate's envelope, or the stored Message
 * (JSON-RPC: with the duplicate's own id; REST: the body as the agent sent it).
 */
import { contentTypeFor } from '../../a2a/content-type.js';
import { httpSendOf, type HttpSend } from '../../a2a/rescue-wire.js';
import { clientTimeoutMs, TIMEOUT_HEADER } from '../../rescue/deadline.js';
import { GatewayError } from '../../errors/gateway-error.js';
import type { ErrorContext } from '../../errors/json-answer.js';
import type { RoutedCall } from '../../pipeline/binding.js';
import type { RequestBody } from '../../pipeline/request-body.js';
import type { TaskTracker } from '../../tasks/tracker.js';
import type { Outcome } from '../../idempotency/store.js';
import { IDEMPOTENT_HEADER, replaySendOf, replayTask } from '../../idempotency/replay.js';
import { HttpAnswer } from './rescue-answer.js';
import { HttpCaller } from './rescue-caller.js';
import { agentSideOf } from './rescue-call.js';
import type { JsonReply } from './rescue-calls.js';
import type { HttpCall } from './http-call.js';

export async function replayHttpCall(
  routed: RoutedCall<HttpCall>,
  prepared: { readonly headers: string[]; readonly errorContext: ErrorContext },
  body: RequestBody,
  outcome: Outcome,
  tracker: TaskTracker,
): Promise<void> {
  const { call, exchange, replica } = routed;
  const facts = exchange.request!;
  const decided = replaySendOf(facts);
  const own = decided && httpSendOf(decided, facts.document ?? parseJson(body.prefix), exchange.upstreamPath);
  // A covered send was read whole and parsed (src/idempotency/key.ts): this is not reached.
  if (!own) throw new GatewayError('INTERNAL', 'the duplicate send could not be read');
  if (outcome.kind === 'message') {
    // Kept as the first send's caller got it (the idempotency tap sees the translated answer).
    new HttpAnswer(exchange, call.res, own, prepared.errorContext).passOn(storedMessage(own, outcome));
    exchange.finish();
    return;
  }
  // A translated call (docs/translation.md): the task is read in the agent's version, answered in the caller's.
  const agentSide = exchange.translation ? await agentSideOf(routed, prepared.headers, body, decided) : undefined;
  const send = agentSide?.send ?? own;
  const answer = new HttpAnswer(exchange, call.res, send, prepared.errorContext, agentSide?.translate);
  const policy = exchange.upstream.config.timeoutRescue;
  const timeout = clientTimeoutMs(call.headers[TIMEOUT_HEADER], policy.clientTimeout);
  await replayTask(
    {
      exchange,
      send,
      caller: new HttpCaller({ replica, agent: exchange.upstream.name }, send, agentSide?.headers ?? prepared.headers),
      answer,
      envelope: envelopeOf(send),
      answerBy: exchange.record.startedAt + timeout - policy.margin,
      tracker,
    },
    outcome.taskId,
  );
}

/** The SendMessage response the task goes into (rescue-wire.ts withTask), with the header. */
function envelopeOf(send: HttpSend): JsonReply {
  const doc = send.binding === 'jsonrpc' ? { jsonrpc: '2.0', id: send.jsonrpcId, result: {} } : {};
  const headers = [
    'content-type',
    contentTypeFor(send.binding, send.version, send.a2aJson),
    IDEMPOTENT_HEADER,
    'replayed',
  ];
  return { status: 200, headers, body: Buffer.alloc(0), doc };
}

/** The first send's Message answer; a JSON-RPC one carries this call's id instead of the first's. */
function storedMessage(send: HttpSend, outcome: Extract<Outcome, { kind: 'message' }>): JsonReply {
  let body = Buffer.from(outcome.body, 'base64');
  const doc = parseJson(body);
  if (send.binding === 'jsonrpc' && doc && typeof doc === 'object')
    body = Buffer.from(JSON.stringify({ ...(doc as object), id: send.jsonrpcId }));
  const headers = ['content-type', outcome.contentType, IDEMPOTENT_HEADER, 'replayed'];
  return { status: outcome.status, headers, body, doc };
}

function parseJson(bytes: Buffer): unknown {
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
}
