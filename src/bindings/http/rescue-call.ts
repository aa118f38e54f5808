/**
 * Pipeline step 6 on the HTTP bindings (JSON-RPC, HTTP+JSON): the steps of src/rescue/rescue.ts
 * over the HTTP caller (rescue-caller.ts: the caller's binding and version, on the agent's
 * pools) and answer (rescue-answer.ts: the caller's envelope, header `A2A-Gateway-Rescue`), with
 * the caller's deadline and the strategy the agent's card allows.
 */
import type { RoutedCall } from '../../pipeline/binding.js';
import type { RequestBody } from '../../pipeline/request-body.js';
import type { CardCache } from '../../cards/cache.js';
import type { TaskTracker } from '../../tasks/tracker.js';
import type { ErrorContext } from '../../errors/json-answer.js';
import { httpSendOf, type BlockingSend, type HttpSend } from '../../a2a/rescue-wire.js';
import { translateCall, translatedBody } from './translate.js';
import type { AnswerTranslator } from './rescue-answer.js';
import { rescue } from '../../rescue/rescue.js';
import { resolveStrategy } from '../../rescue/policy.js';
import { clientTimeoutMs, TIMEOUT_HEADER } from '../../rescue/deadline.js';
import { HttpAnswer } from './rescue-answer.js';
import { HttpCaller } from './rescue-caller.js';
import type { HttpCall } from './http-call.js';

/** False when the send cannot be rescued here (its body was not read whole, or is not an object): it is relayed. */
export async function rescueHttpCall(
  routed: RoutedCall<HttpCall>,
  prepared: { readonly headers: string[]; readonly errorContext: ErrorContext },
  body: RequestBody,
  decided: BlockingSend,
  deps: { readonly cards: CardCache; readonly tracker: TaskTracker },
): Promise<boolean> {
  const { call, exchange, replica } = routed;
  if (!body.complete) return false;
  const agentSide = await agentSideOf(routed, prepared.headers, body, decided);
  if (!agentSide) return false;
  const { send, headers } = agentSide;
  const { upstream } = exchange;
  const policy = upstream.config.timeoutRescue;
  const card = await deps.cards
    .get(upstream, upstream.config.cardPath, { 'a2a-version': '1.0' })
    .catch(() => undefined);
  const timeout = clientTimeoutMs(call.headers[TIMEOUT_HEADER], policy.clientTimeout);
  await rescue({
    exchange,
    send,
    caller: new HttpCaller({ replica, agent: upstream.name }, send, headers),
    answer: new HttpAnswer(exchange, call.res, send, prepared.errorContext, agentSide.translate),
    policy,
    strategy: resolveStrategy(policy.strategy, card?.card),
    answerBy: exchange.record.startedAt + timeout - policy.margin,
    tracker: deps.tracker,
  });
  return true;
}

/**
 * The send as the agent reads it, and the headers its calls carry: the caller's own, or — a
 * translated call (docs/translation.md) — its translation, the rescue's calls then in the agent's
 * version and its answer translated back to the caller's.
 */
export async function agentSideOf(
  { call, exchange, path }: RoutedCall<HttpCall>,
  headers: string[],
  body: RequestBody,
  decided: BlockingSend,
): Promise<{ send: HttpSend; headers: string[]; translate?: AnswerTranslator } | undefined> {
  const t = exchange.translation;
  if (!t) {
    // Bodies up to the decoder's parse buffer were parsed whole already; a larger one is parsed here.
    const send = httpSendOf(decided, exchange.request?.document ?? parseJson(body.prefix), exchange.upstreamPath);
    return send && { send, headers };
  }
  const made = await translateCall(exchange, t, call.method, path, headers, body);
  const send = httpSendOf({ ...decided, version: t.agent }, parseJson(made.body ?? Buffer.alloc(0)), made.path);
  return (
    send && { send, headers: made.headers, translate: (status, answer) => translatedBody(exchange, t, answer, status) }
  );
}

function parseJson(bytes: Buffer): unknown {
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
}
