/**
 * The observer that follows a first send's answer (first-send.ts). Placed right after inspection
 * (src/gateway/gateway.ts), so at `onFinish` the record holds inspection's facts. Read only
 * (principle 6): it copies nothing it does not keep, and an exchange that is no first send costs
 * one Map lookup per hook.
 */
import type { Exchange, ExchangeObserver } from '../exchange/exchange.js';
import type { FirstSend } from './first-send.js';

/** Its key in `Exchange.state` (keyed by objects). */
const FIRST_SEND = { name: 'idempotency.first-send' };

/** Marks `exchange` as the first send of its key (the idempotency step). */
export function markFirstSend(exchange: Exchange, first: FirstSend): void {
  exchange.state.set(FIRST_SEND, first);
  exchange.taskNamed = first.taskNamed;
}

const firstOf = (exchange: Exchange) => exchange.state.get(FIRST_SEND) as FirstSend | undefined;

export function createIdempotencyTap(): ExchangeObserver {
  return {
    name: 'idempotency',
    onResponseStart: (exchange, status, headers) => firstOf(exchange)?.responseStart(status, headers),
    onResponseChunk: (exchange, chunk) => firstOf(exchange)?.responseChunk(chunk),
    onFinish: (exchange) => firstOf(exchange)?.finish(exchange.record),
  };
}
