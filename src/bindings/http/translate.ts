/**
 * Pipeline step 7 for a translated call (step 3d, src/translate/, docs/translation.md) on the
 * HTTP binding: the call's body read whole (bounded by the agent's body limit) and translated to
 * the agent's version with its route and version headers; the answer translated back — a unary
 * body held and rewritten whole (bounded), an SSE answer event by event as it passes. What cannot
 * be translated is refused in the caller's protocol and never sent (the call), or answered with
 * an error (the answer): never passed on altered or untranslated.
 */
import type { Readable } from 'node:stream';
import { A2AError } from '../../errors/a2a-error.js';
import { GatewayError } from '../../errors/gateway-error.js';
import type { BodyRewrite, RewriteResult } from '../../exchange/answer-rewrite.js';
import type { Exchange } from '../../exchange/exchange.js';
import type { RequestBody } from '../../pipeline/request-body.js';
import type { Translation } from '../../translate/decision.js';
import { rpcRequest } from '../../translate/jsonrpc.js';
import { restPath, restRequest } from '../../translate/rest.js';
import { translateAnswer } from '../../translate/answer.js';
import { TranslatedEvents } from '../../translate/event-stream.js';
import { isObj, Untranslatable } from '../../translate/shapes.js';
import { continuationCall } from '../../a2a/resume-wire.js';
import { matchRestRoute } from '../../a2a/rest-routes.js';
import type { EventTranslator } from './forward.js';
import { contentTypeFor } from '../../a2a/content-type.js';
import { withRewrittenBody } from '../../transport/headers.js';

/** What the agent gets instead of the caller's call. */
export interface TranslatedCall {
  /** Path (and query) on the agent. */
  readonly path: string;
  readonly headers: string[];
  readonly body: Buffer | null;
}

/** The biggest unary answer translated (larger: 502, never passed on untranslated). */
export const MAX_ANSWER_BYTES = 16 * 1024 * 1024;

export async function translateCall(
  exchange: Exchange,
  t: Translation,
  method: string,
  path: string,
  headers: string[],
  body: RequestBody,
): Promise<TranslatedCall> {
  const bytes = body.complete ? body.prefix : await readAll(body);
  try {
    // A tenant in the REST path (or anywhere the classifier found one): 0.3 has no tenants.
    const tenant = exchange.request?.tenant;
    if (t.agent === '0.3' && tenant) throw new Untranslatable('tenant', `A2A 0.3 has no tenants (${tenant})`);
    const doc = bytes.length === 0 ? undefined : (JSON.parse(bytes.toString('utf8')) as unknown);
    const translated = t.binding === 'jsonrpc' ? translateRpc(doc, t) : translateRest(doc, t, method, path, exchange);
    const out = translated.body === undefined ? null : Buffer.from(JSON.stringify(translated.body));
    const agentPath =
      translated.path === undefined ? exchange.upstreamPath : exchange.upstream.basePath + translated.path;
    return { path: agentPath, headers: inAgentVersion(headers, t, out?.length ?? 0), body: out };
  } catch (err) {
    exchange.record.translation!.outcome = 'refused';
    throw refusal(err, t);
  }
}

/** JSON-RPC: the same endpoint (path undefined), the request translated. */
function translateRpc(doc: unknown, t: Translation): { path?: string; body: unknown } {
  if (!isObj(doc)) throw new Untranslatable('body', 'not a JSON-RPC request object');
  return { body: rpcRequest(doc, t.operation, t.agent) };
}

function translateRest(
  doc: unknown,
  t: Translation,
  method: string,
  path: string,
  exchange: Exchange,
): { path: string; body: unknown } {
  const to = restPath(method, path, t.agent);
  if (to === undefined) throw new Untranslatable(path, 'not an A2A route');
  return { path: to, body: restRequest(doc, t.operation, t.agent, exchange.request?.taskId) };
}

/** JSON that does not parse, or what has no counterpart: InvalidParams / UnsupportedOperation. */
function refusal(err: unknown, t: Translation): Error {
  if (err instanceof Untranslatable) {
    const kind = err.unsupported ? 'UnsupportedOperation' : 'Untranslatable';
    return new A2AError(kind, `cannot translate to A2A ${t.agent}: ${err.message}`, { agentVersion: t.agent });
  }
  if (err instanceof SyntaxError) return new GatewayError('REQUEST_INVALID', `the body is not JSON: ${err.message}`);
  return err as Error;
}

/** The rest of a body longer than the read-ahead; the body stream enforces the size limit. */
async function readAll(body: RequestBody): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body.forward as Readable) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const VERSION_HEADERS = new Set(['a2a-version', 'content-length', 'transfer-encoding', 'content-type']);
const EXTENSIONS = { '1.0': 'A2A-Extensions', '0.3': 'X-A2A-Extensions' } as const;

/** The caller's headers in the agent's version: A2A-Version, the extensions header's name, framing. */
export function inAgentVersion(headers: string[], t: Translation, length: number): string[] {
  const out: string[] = [];
  const from = EXTENSIONS[t.caller].toLowerCase();
  for (let i = 0; i < headers.length; i += 2) {
    const name = headers[i]!.toLowerCase();
    if (VERSION_HEADERS.has(name)) continue;
    out.push(name === from ? EXTENSIONS[t.agent] : headers[i]!, headers[i + 1]!);
  }
  if (t.agent === '1.0') out.push('A2A-Version', '1.0');
  out.push('content-type', 'application/json', 'content-length', String(length));
  return out;
}

/** A unary answer, held whole (bounded) and translated; observers see the translated body. */
export function answerRewrite(exchange: Exchange, t: Translation, status: number): BodyRewrite {
  let oversize: GatewayError | undefined;
  return {
    maxBytes: MAX_ANSWER_BYTES,
    // Made only for an answer past the cap: an Error captures its stack when it is constructed,
    // which made it ~4 % of the gateway's CPU per translated unary call (bench/ANALYSIS.md,
    // "Protocol translation").
    get oversize(): GatewayError {
      return (oversize ??= new GatewayError(
        'UPSTREAM_INVALID',
        `the agent's answer is larger than ${MAX_ANSWER_BYTES} bytes and cannot be translated`,
      ));
    },
    apply(body, headers): RewriteResult {
      const out = body.length === 0 ? body : translatedBody(exchange, t, body, status);
      if (out instanceof GatewayError) return { refusal: out };
      exchange.emit('onResponseChunk', out);
      return { body: out, headers: withLength(headers, out.length, out === body ? undefined : t) };
    },
  };
}

export function translatedBody(
  exchange: Exchange,
  t: Translation,
  body: Buffer,
  status: number,
): Buffer | GatewayError {
  let doc: unknown;
  try {
    doc = JSON.parse(body.toString('utf8'));
  } catch (err) {
    // An error page that is not JSON (a 404 from the agent's router) carries nothing to translate.
    if (status >= 400) return body;
    return untranslatable(exchange, t, err);
  }
  try {
    return Buffer.from(JSON.stringify(translateAnswer(t, doc, status)));
  } catch (err) {
    return untranslatable(exchange, t, err);
  }
}

function untranslatable(exchange: Exchange, t: Translation, err: unknown): GatewayError {
  exchange.record.translation!.outcome = 'answer-failed';
  const why = err instanceof Error ? err.message : String(err);
  return new GatewayError('UPSTREAM_INVALID', `the agent's answer cannot be translated to A2A ${t.caller}: ${why}`);
}

/** Response headers with the translated body's length and (translated) the caller's media type. */
function withLength(headers: string[], length: number, t: Translation | undefined): string[] {
  if (!t) return withRewrittenBody(headers, length);
  return [...withRewrittenBody(headers, length, ['content-type']), 'content-type', contentTypeFor(t.binding, t.caller)];
}

/**
 * A resumed translated stream goes on (stream resume, src/bindings/http/binding.ts
 * `continueStream`) with a SubscribeToTask for its task in the agent's version: JSON-RPC at the
 * endpoint the call went to, HTTP+JSON at the task's route under the call's interface path.
 */
export function continuationInAgentVersion(
  { call, exchange, path }: { call: { method: string }; exchange: Exchange; path: string },
  t: Translation,
  taskId: string,
): { readonly path: string; readonly body: Buffer | null } | undefined {
  const facts = exchange.request;
  if (!facts) return undefined;
  const inAgents = { ...facts, version: t.agent, wireVersion: t.agent, tenant: undefined };
  if (t.binding === 'jsonrpc') return continuationCall(inAgents, exchange.upstreamPath, taskId);
  const prefix = matchRestRoute(call.method, path)?.prefix ?? '';
  const route = restPath('POST', `${prefix}/tasks/${encodeURIComponent(taskId)}:subscribe`, t.agent);
  return route === undefined ? undefined : { path: exchange.upstream.basePath + route, body: Buffer.from('{}') };
}

export function eventTranslator(t: Translation): () => EventTranslator {
  return () => new TranslatedEvents(t);
}
