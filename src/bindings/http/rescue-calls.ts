/**
 * The upstream calls the timeout rescue makes on the caller's behalf: same pool, same headers
 * (auth, A2A-Version, extensions, trace context), each abortable by the client leaving or the
 * deadline passing.
 */
import type { Dispatcher } from 'undici';
import type { Replica } from '../../transport/replica.js';
import { clientResponseHeaders } from '../../transport/headers.js';
import { GatewayError } from '../../errors/gateway-error.js';
import { readCapped } from '../../transport/read-capped.js';
import { createSseDecoder } from '../../codec/sse.js';
import type { UpstreamCall } from '../../a2a/rescue-wire.js';

/** Where the rescue's calls go: the replica the call was placed on (src/fleet/placement.ts), and its agent's name for errors. */
export interface CallTarget {
  readonly replica: Replica;
  readonly agent: string;
}

/**
 * The most a rescue holds of one reply (a JSON body read whole, or one SSE event): the rescue
 * needs a task's id and state, and A2A tasks are far smaller. A larger reply is not read on
 * (principle 19): its connection is closed and the rescue fails with UPSTREAM_INVALID. A
 * constant rather than a config key: only an agent inlining megabytes of artifacts in a Task
 * gets near it, and the client then still has `strategy` and `enabled: false`.
 */
export const MAX_REPLY_BYTES = 8 * 1024 * 1024;

export interface JsonReply {
  readonly status: number;
  /** Client-facing headers (hop-by-hop removed), flat. */
  readonly headers: string[];
  readonly body: Buffer;
  /** The parsed body, or undefined when it is not JSON. */
  readonly doc: unknown;
}

/**
 * The caller's forwarded headers, fitted to one call: body length and type set by undici/us, and
 * `Accept-Encoding: identity` in place of the caller's — the rescue reads each reply as JSON or
 * SSE, and an agent that compresses what the caller accepts (express's `compression`) would
 * otherwise answer the rescue in bytes it cannot read. A reply passed on to the caller is then
 * uncompressed, which every client accepts.
 */
export function headersFor(base: readonly string[], call: UpstreamCall, accept?: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < base.length; i += 2) {
    const lower = base[i]!.toLowerCase();
    if (lower === 'content-length' || lower === 'content-type' || lower === 'accept-encoding') continue;
    if (accept && lower === 'accept') continue;
    out.push(base[i]!, base[i + 1]!);
  }
  if (call.body) out.push('content-type', call.contentType ?? 'application/json');
  if (accept) out.push('accept', accept);
  out.push('accept-encoding', 'identity');
  return out;
}

export async function callJson(
  to: CallTarget,
  call: UpstreamCall,
  headers: string[],
  signal: AbortSignal,
): Promise<JsonReply> {
  const response = await to.replica.pool.request(requestOf(call, headers, signal));
  return readReply(response, to.agent);
}

/** One call's undici request options (unary calls on the agent's pool, streams on its stream pool). */
function requestOf(call: UpstreamCall, headers: string[], signal: AbortSignal): Dispatcher.RequestOptions {
  return { path: call.path, method: call.method, headers, body: call.body ?? null, signal };
}

/** The whole reply, abandoned past `MAX_REPLY_BYTES` (read-capped.ts). */
async function readReply(response: Dispatcher.ResponseData, agent: string): Promise<JsonReply> {
  const body = await readCapped(response, MAX_REPLY_BYTES);
  if (!body) {
    throw new GatewayError('UPSTREAM_INVALID', `agent "${agent}" answered with more than ${MAX_REPLY_BYTES} bytes`, {
      agent,
      cause: 'REPLY_TOO_LARGE',
    });
  }
  let doc: unknown;
  try {
    doc = JSON.parse(body.toString('utf8'));
  } catch {
    doc = undefined;
  }
  return { status: response.statusCode, headers: clientResponseHeaders(response.headers), body, doc };
}

/** Opens an SSE call and hands each event's parsed data to `onEvent`; resolves when the stream
 * ends, or when `onEvent` returns true (then the stream is closed). A reply that is not an event
 * stream (agents answer errors as plain JSON, capture v1--edge-rpc-subscribe-unknown-task) is
 * returned whole instead, up to `MAX_REPLY_BYTES` as `callJson`. The event decoder holds at most
 * one event of that size (a longer one is skipped without being held, src/codec/sse.ts). */
export async function followEvents(
  to: CallTarget,
  call: UpstreamCall,
  headers: string[],
  signal: AbortSignal,
  onEvent: (doc: unknown) => boolean,
): Promise<{ status: number; stoppedEarly: boolean; notStream?: JsonReply }> {
  const response = await to.replica.streams.request(requestOf(call, headers, signal));
  const type = String(response.headers['content-type'] ?? '');
  if (!type.startsWith('text/event-stream')) {
    const notStream = await readReply(response, to.agent);
    return { status: response.statusCode, stoppedEarly: false, notStream };
  }
  let stop = false;
  const decoder = createSseDecoder({
    maxEventBytes: MAX_REPLY_BYTES,
    onEvent: (event) => {
      if (stop) return;
      try {
        stop = onEvent(JSON.parse(event.data));
      } catch {
        // not JSON: not an A2A event; keep following
      }
    },
  });
  for await (const chunk of response.body) {
    decoder.push(chunk as Buffer);
    if (stop) {
      response.body.destroy();
      return { status: 200, stoppedEarly: true };
    }
  }
  decoder.end();
  return { status: 200, stoppedEarly: stop };
}
