/**
 * The timeout rescue's answer on the gRPC binding (src/rescue/ports.ts), written to the HTTP/2
 * response: the agent's answer as it came (trailers-only kept trailers-only), or its Task in a
 * SendMessageResponse (src/a2a/grpc/rescue-wire.ts); errors as gRPC statuses (src/errors/grpc-answer.ts).
 * Observers see it as a relayed answer: `onResponseStart`, every chunk, bytes out, trailers.
 */
import { sendMessageResponseOfTask } from '../../a2a/grpc/rescue-wire.js';
import { encodeGrpcFrame } from '../../codec/grpc-frames.js';
import type { RescueAnswer } from '../../rescue/ports.js';
import { RESCUE_HEADER } from '../../rescue/rescue.js';
import type { ProtocolVersion } from '../../a2a/operations.js';
import type { GatewayError } from '../../errors/gateway-error.js';
import { grpcFailureOf, sendGrpcFailure } from '../../errors/grpc-answer.js';
import type { GrpcCall } from './call.js';
import type { UnaryReply } from './unary-call.js';

type Head = Record<string, string | string[]>;

export class GrpcAnswer implements RescueAnswer<UnaryReply, Uint8Array> {
  constructor(
    private readonly call: GrpcCall,
    /** The version the send is written in (the rpc's package). */
    private readonly version: ProtocolVersion,
  ) {}

  get writable(): boolean {
    const { res } = this.call;
    return !res.headersSent && !res.stream.destroyed;
  }

  passOn(reply: UnaryReply): void {
    const trailersOnly = reply.headers === reply.trailers;
    this.write(withoutPseudo(reply.headers), reply.chunks, trailersOnly ? undefined : reply.trailers);
  }

  answerTask(first: UnaryReply | undefined, task: Uint8Array, outcome: 'settled' | 'deadline'): void {
    const headers = first ? withoutPseudo(first.headers) : { 'content-type': 'application/grpc' };
    const body = Buffer.from(encodeGrpcFrame(sendMessageResponseOfTask(task, this.version)));
    this.write({ ...headers, [RESCUE_HEADER]: outcome }, [body], { 'grpc-status': '0' });
  }

  fail(err: GatewayError): void {
    const trailers = sendGrpcFailure(this.call.res, grpcFailureOf(err));
    if (trailers) this.call.exchange.responseTrailers = trailers;
  }

  onClientGone(listener: () => void): () => void {
    const { res } = this.call;
    const onClose = () => {
      if (!res.writableFinished) listener();
    };
    res.on('close', onClose);
    return () => res.off('close', onClose);
  }

  private write(head: Head, chunks: Buffer[], trailers: Record<string, unknown> | undefined): void {
    const { exchange, res } = this.call;
    exchange.emit('onResponseStart', 200, head);
    if (!trailers) {
      // The agent's answer was trailers-only: so is the one passed on.
      exchange.responseTrailers = head;
      res.stream.respond({ ':status': 200, ...head }, { endStream: true });
      return;
    }
    res.writeHead(200, head);
    for (const chunk of chunks) {
      exchange.record.bytesOut += chunk.length;
      exchange.emit('onResponseChunk', chunk);
      res.write(chunk);
    }
    const relayed = withoutPseudo(trailers);
    exchange.responseTrailers = relayed;
    res.addTrailers(relayed);
    res.end();
  }
}

/** A header block without its pseudo-headers (the listener writes `:status`). */
function withoutPseudo(headers: Record<string, unknown>): Head {
  const out: Head = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!name.startsWith(':') && value !== undefined) out[name] = value as string | string[];
  }
  return out;
}
