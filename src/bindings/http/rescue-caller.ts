/**
 * The timeout rescue's upstream calls on the HTTP bindings (JSON-RPC, HTTP+JSON): made by
 * rescue-calls.ts on the agent's pools with the caller's headers, written and read by src/a2a/rescue-wire.ts, each
 * reply decoded into the facts rescue.ts decides on (ports.ts).
 */
import { contentTypeFor } from '../../a2a/content-type.js';
import { callJson, followEvents, headersFor, type CallTarget, type JsonReply } from './rescue-calls.js';
import type { EventSink, Reply, StreamEvent, UpstreamCaller } from '../../rescue/ports.js';
import {
  getTaskCall,
  nonBlockingBody,
  readGetTaskResponse,
  readSendResponse,
  readStreamEvent,
  streamingRequest,
  subscribeCall,
  type HttpSend,
  type SendResult,
} from '../../a2a/rescue-wire.js';

type Json = Record<string, unknown>;

export class HttpCaller implements UpstreamCaller<JsonReply, Json> {
  constructor(
    private readonly upstream: CallTarget,
    private readonly send: HttpSend,
    /** The caller's headers as forwarded upstream (auth, version, extensions, traceparent). */
    private readonly headers: readonly string[],
  ) {}

  /** The send is the caller's, reworded: in the caller's media type, so the agent takes or refuses
   * it as it would the original (an SDK JSON-RPC agent refuses application/a2a+json, capture
   * `v1--edge-rpc-a2a-json-content-type.http`). The GetTask and subscriptions are the gateway's own. */
  private get asSent(): { contentType?: string } {
    for (let i = 0; i < this.headers.length; i += 2) {
      if (this.headers[i]!.toLowerCase() === 'content-type') return { contentType: this.headers[i + 1]! };
    }
    return {};
  }

  async sendNonBlocking(signal: AbortSignal): Promise<Reply<JsonReply, Json>> {
    const call = { method: 'POST' as const, path: this.send.path, body: nonBlockingBody(this.send), ...this.asSent };
    const reply = await callJson(this.upstream, call, headersFor(this.headers, call), signal);
    return replyOf(reply, readSendResponse(this.send, reply.doc));
  }

  async getTask(taskId: string, signal: AbortSignal, currentGeneration?: number): Promise<Reply<JsonReply, Json>> {
    const call = getTaskCall(this.send, taskId, currentGeneration);
    const reply = await callJson(this.upstream, call, headersFor(this.headers, call), signal);
    return replyOf(reply, readGetTaskResponse(this.send, reply.doc));
  }

  async subscribe(taskId: string, signal: AbortSignal, onEvent: EventSink<JsonReply, Json>): Promise<void> {
    const follow = (verb: 'GET' | 'POST') => {
      const call = subscribeCall(this.send, taskId, verb);
      const headers = headersFor(this.headers, call, 'text/event-stream');
      return followEvents(this.upstream, call, headers, signal, (doc) => onEvent(eventOf(this.send, doc)));
    };
    const { status } = await follow('POST');
    // REST subscribe: the proto says GET, the spec POST (wire-reference §7.1 #2): try the other.
    if (this.send.binding === 'rest' && (status === 404 || status === 405)) await follow('GET');
  }

  async sendStreaming(
    signal: AbortSignal,
    onEvent: EventSink<JsonReply, Json>,
  ): Promise<Reply<JsonReply, Json> | undefined> {
    const call = { method: 'POST' as const, ...streamingRequest(this.send), ...this.asSent };
    const headers = headersFor(this.headers, call, 'text/event-stream');
    const { notStream } = await followEvents(this.upstream, call, headers, signal, (doc) =>
      onEvent(eventOf(this.send, doc)),
    );
    return notStream && replyOf(notStream, readSendResponse(this.send, notStream.doc));
  }
}

function replyOf(raw: JsonReply, result: SendResult): Reply<JsonReply, Json> {
  if (result.kind !== 'task') return { kind: result.kind, raw };
  const { task, taskId, state, timestamp, generation } = result;
  return { kind: 'task', raw, task, taskId, state, timestamp, generation, contextId: contextOf(task) };
}

function contextOf(task: Json | undefined): string | undefined {
  const contextId = task?.['contextId'];
  return typeof contextId === 'string' ? contextId : undefined;
}

/** A stream event's facts; a Message or an error also as the SendMessage response. */
function eventOf(send: HttpSend, doc: unknown): StreamEvent<JsonReply, Json> {
  const event = readStreamEvent(send, doc);
  if (event.message || event.error) {
    return { kind: event.message ? 'message' : 'error', asReply: eventReply(send, doc, event) };
  }
  const { taskId, state, timestamp, generation, task } = event;
  return { kind: taskId ? 'task' : 'other', taskId, state, timestamp, generation, task, contextId: contextOf(task) };
}

/** A stream's event that is a Message or an error, as the SendMessage response. */
function eventReply(send: HttpSend, doc: unknown, event: { message?: true; error?: true }): JsonReply {
  const status = event.error && send.binding === 'rest' ? restErrorStatus(doc) : 200;
  const body = event.message ? messageEnvelope(send, doc) : Buffer.from(JSON.stringify(doc));
  return { status, headers: ['content-type', contentTypeFor(send.binding, send.version, send.a2aJson)], body, doc };
}

/** A stream's message event, re-wrapped as a SendMessage response (wire-reference §2.4, §6.3). */
function messageEnvelope(send: HttpSend, eventDoc: unknown): Buffer {
  const doc = eventDoc as Json;
  if (send.binding === 'jsonrpc') return Buffer.from(JSON.stringify({ ...doc, id: send.jsonrpcId }));
  return Buffer.from(JSON.stringify(doc));
}

function restErrorStatus(doc: unknown): number {
  const code = (doc as { error?: { code?: unknown } }).error?.code;
  return typeof code === 'number' && code >= 400 && code < 600 ? code : 500;
}
