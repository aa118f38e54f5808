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
import { httpSendOf, type BlockingSend } from '../../a2a/rescue-wire.js';
import { rescue } from '../../rescue/rescue.js';
import { resolveStrategy } from '../../rescue/policy.js';
import { clientTimeoutMs, TIMEOUT_HEADER } from '../../rescue/deadline.js';
import { HttpAnswer } from './rescue-answer.js';
import { HttpCaller } from './rescue-caller.js';
import type { HttpCall } from './http-call.js';

/** False when the send cannot be rescued here (its body was not read whole, or is not an object): it is relayed. */
export async function rescueHttpCall(
  { call, exchange, replica }: RoutedCall<HttpCall>,
  prepared: { readonly headers: string[]; readonly errorContext: ErrorContext },
  body: RequestBody,
  decided: BlockingSend,
  deps: { readonly cards: CardCache; readonly tracker: TaskTracker },
): Promise<boolean> {
  if (!body.complete) return false;
  // Bodies up to the decoder's parse buffer were parsed whole already; a larger one is parsed here.
  const document = exchange.request?.document ?? parseJson(body.prefix);
  const send = httpSendOf(decided, document, exchange.upstreamPath);
  if (!send) return false;
  const { upstream } = exchange;
  const policy = upstream.config.timeoutRescue;
  const card = await deps.cards
    .get(upstream, upstream.config.cardPath, { 'a2a-version': '1.0' })
    .catch(() => undefined);
  const timeout = clientTimeoutMs(call.headers[TIMEOUT_HEADER], policy.clientTimeout);
  await rescue({
    exchange,
    send,
    caller: new HttpCaller({ replica, agent: upstream.name }, send, prepared.headers),
    answer: new HttpAnswer(exchange, call.res, send, prepared.errorContext),
    policy,
    strategy: resolveStrategy(policy.strategy, card?.card),
    answerBy: exchange.record.startedAt + timeout - policy.margin,
    tracker: deps.tracker,
  });
  return true;
}

function parseJson(bytes: Buffer): unknown {
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
}
