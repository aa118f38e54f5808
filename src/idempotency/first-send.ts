/**
 * The first send of an idempotency key, followed to its outcome (docs/fleet.md "Idempotent
 * sends"): the task it created or continued — named at once by the timeout rescue
 * (Exchange.taskNamed), else read by inspection from the answer (`record.a2a`) — or the Message
 * it was answered with, its bytes as the answer carried them up to `maxMessageBytes`. An exchange
 * that ends with neither (an error, a cut, a Message too large to keep) releases the key, so a
 * retry reaches the agent. The tap (tap.ts) feeds it the answer; it keeps nothing else.
 */
import type { ResponseHeaders } from '../exchange/exchange.js';
import type { ExchangeRecord } from '../exchange/record.js';
import type { IdempotencyStore, Outcome } from './store.js';

export interface FirstSendClaim {
  readonly store: IdempotencyStore;
  readonly key: string;
  readonly token: string;
  readonly fingerprint: string;
  readonly windowMs: number;
  readonly maxMessageBytes: number;
}

export class FirstSend {
  private done = false;
  private status = 0;
  private contentType = '';
  private chunks: Buffer[] = [];
  private bytes = 0;

  constructor(private readonly claim: FirstSendClaim) {}

  /** The task is known before the answer (the rescue's first reply). */
  readonly taskNamed = (taskId: string): void => this.settle({ kind: 'task', taskId });

  responseStart(status: number, headers: ResponseHeaders): void {
    this.status = status;
    const type = headers['content-type'];
    this.contentType = (Array.isArray(type) ? type[0] : type) ?? '';
  }

  /** Keeps the answer's bytes while they fit a Message outcome; past the cap, none. */
  responseChunk(chunk: Buffer): void {
    if (this.done || this.bytes > this.claim.maxMessageBytes) return;
    this.bytes += chunk.length;
    if (this.bytes > this.claim.maxMessageBytes) this.chunks = [];
    else this.chunks.push(chunk);
  }

  /** The exchange finished (inspection has filled `record.a2a`): settle, or release the key. */
  finish(record: ExchangeRecord): void {
    if (this.done) return;
    const outcome = outcomeOf(
      record,
      this.status,
      this.contentType,
      this.chunks,
      this.bytes <= this.claim.maxMessageBytes,
    );
    if (outcome) return this.settle(outcome);
    this.done = true;
    this.chunks = [];
    const { store, key, token } = this.claim;
    store.release(key, token).catch(() => {
      // Redis down: the pending entry stays until its window ends (docs/fleet.md, failure semantics).
    });
  }

  private settle(outcome: Outcome): void {
    if (this.done) return;
    this.done = true;
    this.chunks = [];
    const { store, key, token, fingerprint, windowMs } = this.claim;
    store.settle(key, token, fingerprint, outcome, windowMs).catch(() => {
      // As release: duplicates wait, then are refused, until the window ends.
    });
  }
}

/** A task named by the answer (whatever became of the exchange: the task is at the agent), or a
 * Message answered whole with a success status. */
function outcomeOf(
  record: ExchangeRecord,
  status: number,
  contentType: string,
  chunks: Buffer[],
  fits: boolean,
): Outcome | undefined {
  const a2a = record.a2a;
  // `a2a.taskId` may be the request's own (a follow-up): only a Task answer names the outcome.
  const taskId = (a2a?.kind === 'task' ? a2a.taskId : undefined) ?? record.rescue?.taskId;
  if (taskId) return { kind: 'task', taskId };
  if (a2a?.kind !== 'message' || record.outcome !== 'complete' || !fits) return undefined;
  if (status < 200 || status >= 300 || a2a.partial) return undefined;
  return { kind: 'message', status, contentType, body: Buffer.concat(chunks).toString('base64') };
}
