/**
 * The timeout rescue's answer on the HTTP bindings: written to the exchange's response through
 * the same observer hooks as a forwarded answer (`onResponseStart`, `onResponseChunk`, bytes out),
 * errors in the caller's protocol (src/proxy/error-response.ts).
 */
import { contentTypeFor } from '../a2a/content-type.js';
import type { Exchange } from '../exchange/exchange.js';
import { sendGatewayError, type ErrorContext } from '../proxy/error-response.js';
import type { GatewayError } from '../transport/errors.js';
import type { JsonReply } from './calls.js';
import type { RescueAnswer } from './ports.js';
import { RESCUE_HEADER } from './rescue.js';
import { withTask, type HttpSend } from './wire.js';

type Json = Record<string, unknown>;

export class HttpAnswer implements RescueAnswer<JsonReply, Json> {
  constructor(
    private readonly exchange: Exchange,
    private readonly send: HttpSend,
    private readonly errorContext: ErrorContext,
  ) {}

  get writable(): boolean {
    return !this.exchange.res.headersSent;
  }

  passOn(reply: JsonReply): void {
    this.write(reply.status, reply.headers, reply.body);
  }

  answerTask(first: JsonReply | undefined, task: Json, outcome: 'settled' | 'deadline'): void {
    const envelope = first ?? this.streamEnvelope();
    this.write(envelope.status, envelope.headers, withTask(this.send, envelope.doc as Json, task), outcome);
  }

  fail(err: GatewayError): void {
    sendGatewayError(this.exchange.res, err, this.errorContext);
  }

  onClientGone(listener: () => void): () => void {
    const { res } = this.exchange;
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
    return { status: 200, headers: ['content-type', contentTypeFor(send.binding, send.version)], doc };
  }

  private write(status: number, headers: string[], body: Buffer, rescue?: 'settled' | 'deadline'): void {
    const { exchange } = this;
    const out: string[] = [];
    for (let i = 0; i < headers.length; i += 2)
      if (headers[i]!.toLowerCase() !== 'content-length') out.push(headers[i]!, headers[i + 1]!);
    out.push('content-length', String(body.length));
    if (rescue) out.push(RESCUE_HEADER, rescue);
    const asObject: Record<string, string> = {};
    for (let i = 0; i < out.length; i += 2) asObject[out[i]!.toLowerCase()] = out[i + 1]!;
    exchange.record.status = status;
    exchange.record.bytesOut += body.length;
    exchange.emit('onResponseStart', status, asObject);
    exchange.emit('onResponseChunk', body);
    exchange.res.writeHead(status, out);
    exchange.res.end(body);
  }
}
