/**
 * The timeout rescue on the HTTP bindings (JSON-RPC, HTTP+JSON), as src/proxy/pipeline.ts
 * calls it: the steps of rescue.ts over the HTTP caller (http-caller.ts) and answer
 * (http-answer.ts).
 */
import type { Exchange } from '../exchange/exchange.js';
import type { RescueStrategy } from '../exchange/record.js';
import type { AgentConfig } from '../config/schema.js';
import type { ErrorContext } from '../proxy/error-response.js';
import type { TaskTracker } from '../tasks/tracker.js';
import { HttpAnswer } from './http-answer.js';
import { HttpCaller } from './http-caller.js';
import { rescue } from './rescue.js';
import type { HttpSend } from './wire.js';

export interface RescueRequest {
  readonly exchange: Exchange;
  readonly send: HttpSend;
  /** The caller's headers as forwarded upstream (auth, version, extensions, traceparent). */
  readonly headers: string[];
  readonly policy: AgentConfig['timeoutRescue'];
  readonly strategy: RescueStrategy;
  /** Epoch ms at which the client must have its answer (deadline − margin). */
  readonly answerBy: number;
  readonly errorContext: ErrorContext;
  /** Hears every state the rescue sees (gateway-only sightings). */
  readonly tracker: TaskTracker;
}

export function runRescue(req: RescueRequest): Promise<void> {
  const { exchange, send } = req;
  return rescue({
    exchange,
    send,
    caller: new HttpCaller(exchange.upstream, send, req.headers),
    answer: new HttpAnswer(exchange, send, req.errorContext),
    policy: req.policy,
    strategy: req.strategy,
    answerBy: req.answerBy,
    tracker: req.tracker,
  });
}
