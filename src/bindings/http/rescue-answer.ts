/**
 * The timeout rescue's answer on the HTTP bindings: written to the exchange's response through
 * the same observer hooks as a forwarded answer (`onResponseStart`, `onResponseChunk`, bytes out),
 * errors in the caller's protocol (src/errors/json-answer.ts).
 */
import type { ServerResponse } from 'node:http';
import { contentTypeFor } from '../../a2a/content-type.js';
import type { Exchange } from '../../exchange/exchange.js';
import { sendGatewayError, type ErrorContext } from '../../errors/json-answer.js';
import { GatewayError } from '../../errors/gateway-error.js';
import type { JsonReply } from './rescue-calls.js';
import type { RescueAnswer } from '../../rescue/ports.js';
import { RESCUE_HEADER } from '../../rescue/rescue.js';
import { withTask, type HttpSend } from '../../a2a/rescue-wire.js';
import { withBodyLength, withRewrittenBody } from '../../transport/headers.js';

type Json = Record<string, unknown>;

/** A translated call's answer, from the agent's version to the caller's (src/bindings/http/translate.ts). */
export type AnswerTranslator = (status: number, body: Buffer) => Buffer | GatewayError;

export class HttpAnswer implements RescueAnswer<JsonReply, Json> {
  constructor(
    private readonly exchange: Exchange,
    /** The client's response (http-call.ts). */
    private readonly res: ServerResponse,
    private readonly send: HttpSend,
    private readonly errorContext: ErrorContext,
    /** Set for a translated call: the send is in the agent's version, the answer goes out in the caller's. */
    private readonly translate?: AnswerTranslator,
  ) {}

  get writable(): boolean {
    return !this.res.headersSent;
  }

  passOn(reply: JsonReply): void {
    this.write(reply.status, reply.headers, reply.body);
  }

  answerTask(first: JsonReply | undefined, task: Json, outcome: 'settled' | 'deadline'): void {
    const envelope = first ?? this.streamEnvelope();
    this.write(envelope.status, envelope.headers, withTask(this.send, envelope.doc as Json, task), outcome);
  }

  fail(err: GatewayError): void {
    sendGatewayError(this.res, err, this.errorContext);
  }

  onClientGone(listener: () => void): () => void {
    const { res } = this;
    const onClose = () => {
      if (!res.writableFinished) listener();
    };
    res.on('close', onClose);
    return () => res.off('close', onClose);
  }

  /** The SendMessage response for a task that arrived by stream (no plain response to reuse). */
  private streamEnvelope(): Pick<JsonReply, 'status' | 'headers' | 'doc'> {
    const { send } = this;
    const doc = send.binding === 'jsonrpc' ? { jsonrpc: '2.0', id: send.jsonrpcId, result: {} } : {};
    return { status: 200, headers: ['content-type', contentTypeFor(send.binding, send.version, send.a2aJson)], doc };
  }

  private write(status: number, headers: string[], agentBody: Buffer, rescue?: 'settled' | 'deadline'): void {
    const { exchange } = this;
    const body = this.translate ? this.translate(status, agentBody) : agentBody;
    if (body instanceof GatewayError) {
      exchange.fail('upstream-error', body);
      return this.fail(body);
    }
    // The agent's ETag and digests describe its bytes; a rewritten body goes without them.
    const out =
      body === agentBody && !rescue ? withBodyLength(headers, body.length) : withRewrittenBody(headers, body.length);
    if (rescue) out.push(RESCUE_HEADER, rescue);
    const asObject: Record<string, string> = {};
    for (let i = 0; i < out.length; i += 2) asObject[out[i]!.toLowerCase()] = out[i + 1]!;
    exchange.record.status = status;
    exchange.record.bytesOut += body.length;
    exchange.emit('onResponseStart', status, asObject);
    exchange.emit('onResponseChunk', body);
    this.res.writeHead(status, out);
    this.res.end(body);
  }
}
