/**
 * The one response body the forwarder holds back: a small body an explicit rewrite replaces
 * whole (the extended agent card, extended-card.ts). It is buffered up to the rewrite's
 * `maxBytes`; a larger one is written unchanged as soon as it outgrows that, and the rest of it
 * is relayed as usual — unless the rewrite enforces something (the ListTasks filter of task
 * ownership, src/access/list-tasks.ts): then a body it cannot rewrite is refused, never passed on.
 */
import type { ServerResponse } from 'node:http';
import type { GatewayError } from '../../errors/gateway-error.js';
import type { BodyRewrite, Finding } from '../../exchange/answer-rewrite.js';

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
   * unchanged (headers and every chunk so far) and the rest must be relayed as it comes — or,
   * with `oversize`, nothing was written and the caller answers that refusal. */
  push(res: ServerResponse, chunk: Buffer): boolean {
    this.chunks.push(chunk);
    this.size += chunk.length;
    if (this.size <= this.rewrite.maxBytes) return true;
    if (this.rewrite.oversize) {
      this.chunks = [];
      return false;
    }
    res.writeHead(this.status, this.headers);
    for (const held of this.chunks) res.write(held);
    this.chunks = [];
    return false;
  }

  /** The refusal for a body past `maxBytes`, when the rewrite enforces something. */
  get oversize(): GatewayError | undefined {
    return this.rewrite.oversize;
  }

  /** The whole body arrived: writes it rewritten and ends the response (returning the rewrite's
   * findings), or returns the refusal, writing nothing. */
  async end(res: ServerResponse): Promise<readonly Finding[] | GatewayError> {
    const result = await this.rewrite.apply(Buffer.concat(this.chunks, this.size), this.headers);
    if ('refusal' in result) return result.refusal;
    res.writeHead(this.status, result.headers);
    res.end(result.body);
    return result.findings ?? [];
  }
}
