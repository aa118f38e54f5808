/**
 * One answer body or one stream event's data, translated to the caller's version: the binding's
 * translator (jsonrpc.ts, rest.ts) on the parsed JSON. Pure; throws `Untranslatable`.
 */
import { isObj } from './shapes.js';
import { rpcAnswer } from './jsonrpc.js';
import { restAnswer } from './rest.js';
import type { Translation } from './decision.js';

export function translateAnswer(t: Translation, doc: unknown, httpStatus: number): unknown {
  if (t.binding === 'jsonrpc') return isObj(doc) ? rpcAnswer(doc, t.operation, t.caller) : doc;
  return restAnswer(doc, t.operation, t.caller, httpStatus);
}

/** An SSE event's data: REST streams carry errors as `{error}` (1.0) or `{code, message}` (0.3). */
export function translateEventData(t: Translation, doc: unknown): unknown {
  if (t.binding === 'rest' && isObj(doc) && (isObj(doc['error']) || typeof doc['code'] === 'number')) {
    return restAnswer(doc, t.operation, t.caller, 500);
  }
  return translateAnswer(t, doc, 200);
}
