/**
 * Pipeline step 6 on the HTTP binding: a blocking SendMessage to an agent with the timeout
 * rescue on goes to src/rescue/rescue.ts, with the caller's deadline and the agent's strategy.
 */
import type { Exchange } from '../../exchange/exchange.js';
import type { RoutedCall } from '../../pipeline/binding.js';
import type { RequestBody } from '../../pipeline/request-body.js';
import type { CardCache } from '../../cards/cache.js';
import type { TaskTracker } from '../../tasks/tracker.js';
import type { ErrorContext } from '../../errors/json-answer.js';
import { parseBlockingSend, type BlockingSend } from '../../rescue/wire.js';
import { runRescue } from '../../rescue/rescue.js';
import { resolveStrategy } from '../../rescue/policy.js';
import { clientTimeoutMs, TIMEOUT_HEADER } from '../../rescue/deadline.js';
import type { HttpCall } from './http-call.js';

/** A blocking SendMessage, read whole, to an agent with the rescue on. */
export function wantsRescue(exchange: Exchange, body: RequestBody): boolean {
  return blockingSendOf(exchange, body) !== undefined;
}

/** The blocking send to rescue, if this is one and its agent has the rescue on. */
function blockingSendOf(exchange: Exchange, body: RequestBody): BlockingSend | undefined {
  const facts = exchange.request;
  if (!exchange.upstream.config.timeoutRescue.enabled || !body.complete) return undefined;
  if (facts?.operation !== 'SendMessage') return undefined;
  // Bodies up to the decoder's parse buffer were parsed whole already; a larger one is parsed here.
  const document = facts.document ?? parseJson(body.prefix);
  return parseBlockingSend(facts, document, exchange.upstreamPath);
}

export async function rescueHttpCall(
  { call, exchange }: RoutedCall<HttpCall>,
  prepared: { readonly headers: string[]; readonly errorContext: ErrorContext },
  body: RequestBody,
  deps: { readonly cards: CardCache; readonly tracker: TaskTracker },
): Promise<void> {
  const send = blockingSendOf(exchange, body)!; // the pipeline asked wantsRescue first
  const { upstream } = exchange;
  const policy = upstream.config.timeoutRescue;
  const card = await deps.cards
    .get(upstream, upstream.config.cardPath, { 'a2a-version': '1.0' })
    .catch(() => undefined);
  const timeout = clientTimeoutMs(call.headers[TIMEOUT_HEADER], policy.clientTimeout);
  await runRescue({
    exchange,
    res: call.res,
    send,
    headers: prepared.headers,
    policy,
    strategy: resolveStrategy(policy.strategy, card?.card),
    answerBy: exchange.record.startedAt + timeout - policy.margin,
    errorContext: prepared.errorContext,
    tracker: deps.tracker,
  });
}

function parseJson(bytes: Buffer): unknown {
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
}
