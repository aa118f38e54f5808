/**
 * Each caller's share of one agent's unary calls (`agents.{name}.limits.callsPerClient`, issue
 * #29): a caller — the principal access control identified, else the client address — may have
 * at most `limit` calls in flight to the agent at once, so one client holding blocking sends open
 * can never take the whole pool (`connections`) and leave everyone else queued until
 * `timeouts.queue`. Past its share a call is refused at once, before anything is sent
 * (429 `CLIENT_SHARE_EXCEEDED`, pipeline step 3c).
 *
 * One table per agent per generation, like the pools it protects (src/transport/upstream.ts).
 * Memory is bounded by the callers with a call in flight: a key is deleted when its count falls
 * to zero. The hot path is one Map get and one set per call, and one of each when it finishes.
 */
export class ClientShares {
  private readonly inFlight = new Map<string, number>();

  /** `limit` 0: no share (every caller may use the whole pool). */
  constructor(readonly limit: number) {}

  /** Counts a call of `caller` in; false (and nothing counted) when its share is used up. */
  take(caller: string): boolean {
    const n = this.inFlight.get(caller) ?? 0;
    if (n >= this.limit) return false;
    this.inFlight.set(caller, n + 1);
    return true;
  }

  /** Counts a call of `caller` out; once per successful `take`. */
  release(caller: string): void {
    const n = this.inFlight.get(caller);
    if (n === undefined) return;
    if (n <= 1) this.inFlight.delete(caller);
    else this.inFlight.set(caller, n - 1);
  }

  /** Calls of `caller` in flight now. */
  of(caller: string): number {
    return this.inFlight.get(caller) ?? 0;
  }

  /** Callers with a call in flight now. */
  get callers(): number {
    return this.inFlight.size;
  }
}

/** The default share: half the agent's unary connections (at least one), so no caller can hold them all. */
export function defaultCallsPerClient(connections: number): number {
  return Math.max(1, Math.floor(connections / 2));
}
