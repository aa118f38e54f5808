/**
 * The gRPC answers the relay holds whole and rewrites (docs/ARCHITECTURE.md, "A request's path"
 * step 7; the twin of src/bindings/http/rewrite-buffer.ts): an extended card (its interface URLs,
 * extended-card.ts) and, under task ownership, a ListTasksResponse filtered to the caller's
 * tasks (src/access/list-tasks-grpc.ts). A unary answer is one length-prefixed message ("gRPC
 * over HTTP/2", Length-Prefixed-Message); it is held up to `maxBytes` — past it the gateway
 * answers an error, never a cut message — and the rewrite gets the message itself. An answer
 * that is not one plain message (compressed, several, cut short) is the rewrite's to judge
 * (`unreadable`): passed on as it came, or refused.
 */
import type { Finding } from '../../a2a/findings.js';
import { encodeGrpcFrame, GrpcFrameReader, GRPC_PREFIX_BYTES } from '../../codec/grpc-frames.js';
import { GatewayError } from '../../errors/gateway-error.js';
import type { MessageRewrite } from '../../exchange/answer-rewrite.js';

/** What the pipeline asks of the relay (relay.ts `RelayRequest.rewrite`). */
export interface HeldRewrite {
  readonly message: MessageRewrite;
  /** Largest message held; a larger answer is refused. */
  readonly maxBytes: number;
}

export type HeldResult =
  { readonly body: Buffer; readonly findings: readonly Finding[] } | { readonly refusal: GatewayError };

export class HeldAnswer {
  private chunks: Buffer[] = [];
  private size = 0;

  constructor(
    private readonly rewrite: HeldRewrite,
    private readonly agent: string,
  ) {}

  /** Holds `chunk`; the refusal once the answer has outgrown `maxBytes` (the chunks are let go). */
  push(chunk: Buffer): GatewayError | undefined {
    this.size += chunk.length;
    if (this.size <= this.rewrite.maxBytes + GRPC_PREFIX_BYTES) {
      this.chunks.push(chunk);
      return undefined;
    }
    this.chunks = [];
    return new GatewayError(
      'UPSTREAM_INVALID',
      `the answer of agent "${this.agent}" is larger than the ${this.rewrite.maxBytes} bytes the gateway holds to rewrite it`,
      { agent: this.agent },
    );
  }

  /** The whole answer, not to be rewritten (its grpc-status is not 0). */
  asItCame(): HeldResult {
    return { body: Buffer.concat(this.chunks, this.size), findings: [] };
  }

  /** The whole answer arrived (grpc-status 0): the bytes the client gets, or the refusal. */
  async rewritten(): Promise<HeldResult> {
    const body = Buffer.concat(this.chunks, this.size);
    const read = oneMessage(body, this.rewrite.maxBytes);
    const result =
      typeof read === 'string' ? this.rewrite.message.unreadable(read) : await this.rewrite.message.apply(read);
    if ('refusal' in result) return result;
    const findings = result.findings ?? [];
    if ('asIs' in result || result.message === read) return { body, findings };
    const frame = encodeGrpcFrame(result.message);
    return { body: Buffer.from(frame.buffer, frame.byteOffset, frame.byteLength), findings };
  }
}

/** The body's one uncompressed message, or why it is not one. */
function oneMessage(body: Buffer, maxBytes: number): Uint8Array | string {
  const reader = new GrpcFrameReader(maxBytes);
  let message: Uint8Array | undefined;
  let compressed = false;
  reader.push(body, (m, c) => {
    message = m;
    compressed ||= c;
  });
  if (reader.midMessage) return 'the answer ends inside a message';
  if (reader.messages !== 1 || reader.skipped > 0)
    return `the answer holds ${reader.messages + reader.skipped} messages, not one`;
  if (compressed) return 'the answer is compressed';
  return message!;
}
