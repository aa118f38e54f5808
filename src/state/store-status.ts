/**
 * How the shared store is doing, for the metrics (`a2a_state_store_up`,
 * `a2a_state_store_errors_total`), `/readyz` (with `state.redis.required`) and the log. The
 * store going down or coming back is always logged; failed operations are rate-limited: the
 * first at once, then one per interval saying how many were held back, so a Redis that is down
 * for an hour writes a few dozen lines, not one per request.
 */
import type { Logger } from '../log.js';

export const STORE_OPERATIONS = ['write', 'read', 'census'] as const;
export type StoreOperation = (typeof STORE_OPERATIONS)[number];

export interface StoreStatusView {
  readonly up: boolean;
  readonly errors: Readonly<Record<StoreOperation, number>>;
}

export class StoreStatus implements StoreStatusView {
  up = false;
  /** Whether `up` has been learned yet (the first "down" is worth a warning too). */
  private known = false;
  readonly errors: Record<StoreOperation, number> = { write: 0, read: 0, census: 0 };
  private lastWarning = 0;
  private heldBack = 0;

  constructor(
    private readonly log: Logger,
    private readonly warnEveryMs = 30_000,
  ) {}

  /** One failed operation: counted, and logged unless a warning went out recently. */
  failed(operation: StoreOperation, err: unknown): void {
    this.errors[operation]++;
    this.warn(`state store: ${operation} failed: ${(err as Error)?.message ?? String(err)}`);
  }

  /** The connection came up or went down (logged on each change). */
  setUp(up: boolean, why?: string): void {
    if (this.known && up === this.up) return;
    this.known = true;
    this.up = up;
    // Changes are rare (one per outage, however long), so they are always logged; only the
    // failures during an outage are rate-limited.
    if (up) this.log.info('state store: connected');
    else this.log.warn(`state store: down${why ? ` (${why})` : ''}; traffic goes on, task state is queued`);
  }

  private warn(message: string): void {
    const now = Date.now();
    if (now - this.lastWarning < this.warnEveryMs) {
      this.heldBack++;
      return;
    }
    const held = this.heldBack;
    this.lastWarning = now;
    this.heldBack = 0;
    this.log.warn(held > 0 ? `${message} (and ${held} more state store warnings since the last)` : message);
  }
}
