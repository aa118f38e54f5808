/**
 * The global inspection budget (`inspection.budgetBytes`, principle 19): `inspection.maxBytes`
 * bounds what one exchange's decoders hold, this bounds their sum across all exchanges in flight,
 * so many streams each holding a long unterminated event cannot add up (250 streams
 * × 1 MB events were +280 MB before it).
 *
 * Accounting, not measurement: each response decoder reserves, when its response starts, what it
 * can hold at most (`responseHoldBytes`, src/a2a/response.ts) and releases it when the exchange
 * finishes. While the budget has room an exchange gets all it asks; once it has less, an exchange
 * gets what is left, and never less than `HEAD_ONLY_BYTES`: enough for the kind, ids and state
 * near a body's start (and as much as a JSON body's parse buffer, so unary answers are never
 * reduced). That floor is granted even past the budget, so the sum stays within `budgetBytes`
 * plus `HEAD_ONLY_BYTES` per exchange in flight — inspection is never refused, only shortened,
 * and a shortened exchange that needed more says `partial` (src/inspect/inspector.ts).
 */
export const HEAD_ONLY_BYTES = 16 * 1024;

/** What tests and embedders may read. */
export interface InspectionBudgetView {
  readonly budgetBytes: number;
  /** Bytes reserved by exchanges in flight right now; 0 when none is. */
  readonly inUse: number;
}

export class InspectionBudget implements InspectionBudgetView {
  private used = 0;

  constructor(readonly budgetBytes: number) {}

  get inUse(): number {
    return this.used;
  }

  /** Reserves up to `want` bytes (see the header for how much is granted); returns the grant. */
  reserve(want: number): number {
    if (want <= 0) return 0;
    const free = this.budgetBytes - this.used;
    const granted = want <= free ? want : Math.min(want, Math.max(free, HEAD_ONLY_BYTES));
    this.used += granted;
    return granted;
  }

  /** Gives back a grant; the caller releases each grant exactly once. */
  release(granted: number): void {
    this.used -= granted;
  }
}
