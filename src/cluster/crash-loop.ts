/**
 * The primary's guard against forking forever (src/cluster/primary.ts): a worker that dies is
 * replaced, but when workers keep dying (more than `limit` deaths within `windowMs`, e.g. a
 * config that fails every start, a port taken) replacing them only hides the problem, so the
 * primary gives up and exits non-zero. Pure: test/cluster/crash-loop.test.ts.
 */
export class DeathWindow {
  private readonly deaths: number[] = [];

  constructor(
    readonly limit: number,
    readonly windowMs: number,
  ) {}

  /** Counts a death at `now` (ms); true when there were more than `limit` within the window. */
  record(now: number): boolean {
    this.deaths.push(now);
    while (this.deaths.length > 0 && this.deaths[0]! <= now - this.windowMs) this.deaths.shift();
    return this.deaths.length > this.limit;
  }
}
