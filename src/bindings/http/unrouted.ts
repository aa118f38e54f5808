/**
 * The HTTP binding's answer to a call for an agent that is not configured (pipeline step 1): a
 * 404 as a JSON-RPC envelope with the request's id when the caller speaks JSON-RPC (so the SDK
 * client surfaces it), else as an A2A REST error. Only the body's start is read (for the
 * protocol); a larger body is not drained: the connection closes. Nothing is opened for it.
 */
import { GatewayError } from '../../errors/gateway-error.js';
import { errorContextOf, REST_CONTEXT, sendGatewayError, type ErrorContext } from '../../errors/json-answer.js';
import { RequestClassifier } from '../../pipeline/classify.js';
import { readRequestBody, REQUEST_PREFIX_BYTES } from '../../pipeline/request-body.js';
import type { HttpCall } from './http-call.js';

export async function answerUnknownAgent(call: HttpCall, agent: string, idleMs: number): Promise<void> {
  const { req, res } = call;
  const classifier = new RequestClassifier(call, '/', REQUEST_PREFIX_BYTES);
  let errorContext: ErrorContext;
  let extra: Record<string, string> = {};
  try {
    const limits = { maxBytes: Number.MAX_SAFE_INTEGER, idleMs };
    const body = await readRequestBody(req, REQUEST_PREFIX_BYTES, (chunk) => classifier.push(chunk), limits);
    errorContext = errorContextOf(classifier.end(!body.complete).facts, req.headers);
    if (!body.complete) extra = { connection: 'close' };
  } catch (err) {
    // A body that went quiet is told so; a client that went away is not answered.
    if (err instanceof GatewayError && !res.destroyed) sendGatewayError(res, err, REST_CONTEXT);
    return;
  }
  // The fleet is not listed: who can reach the port must not learn every agent behind it.
  const hint =
    agent === '.well-known'
      ? 'A card was requested one level above an agent: give clients the agent URL with a trailing slash, e.g. /agents/{name}/'
      : `no agent named "${agent.slice(0, 64)}" is configured`;
  sendGatewayError(res, new GatewayError('AGENT_NOT_FOUND', hint, { agent: agent.slice(0, 64) }), errorContext, extra);
}
