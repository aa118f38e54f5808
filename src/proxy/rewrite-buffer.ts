/**
 * The one response body the forwarder holds back: a small body an explicit rewrite replaces
 * whole (the extended agent card, extended-card.ts). It is buffered up to the rewrite's
 * `maxBytes`; a larger one is written unchanged as soon as it outgrows that, and the rest of it
 * is relayed as usual.
 */
import type { ServerResponse } from 'node:http';
import type { Finding } from '../a2a/findings.js';

/** Replaces a whole (small) response body, e.g. a card whose URLs must point at the gateway. */
export interface BodyRewrite {
  /** Largest body it will buffer; a bigger one is passed through unchanged. */
  readonly maxBytes: number;
  /** `findings`: what the rewrite noticed (e.g. a body it left alone because it is not a card). */
  apply(body: Buffer, headers: string[]): { body: Buffer; headers: string[]; findings?: readonly Finding[] };
}

export class RewriteBuffer {
  private chunks: Buffer[] = [];
  private size = 0;

  constructor(
    private readonly rewrite: BodyRewrite,
    private readonly status: number,
    /** The client-facing headers, not written yet. */
    private readonly headers: string[],
  ) {}

  /** Holds `chunk` back; false when the body has outgrown `maxBytes`: it has then been written
   * unchanged (headers and every chunk so far) and the rest must be relayed as it comes. */
  push(res: ServerResponse, chunk: Buffer): boolean {
    this.chunks.push(chunk);
    this.size += chunk.length;
    if (this.size <= this.rewrite.maxBytes) return true;
    res.writeHead(this.status, this.headers);
    for (const held of this.chunks) res.write(held);
    this.chunks = [];
    return false;
  }

  /** The whole body arrived: writes it rewritten, ends the response, returns the rewrite's findings. */
  end(res: ServerResponse): readonly Finding[] {
    const { body, headers, findings } = this.rewrite.apply(Buffer.concat(this.chunks, this.size), this.headers);
    res.writeHead(this.status, headers);
    res.end(body);
    return findings ?? [];
  }
}
