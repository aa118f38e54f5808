/**
 * Findings by rule over the last hour, for `GET /console/api/findings` (src/console/stats.ts):
 * per rule a count per minute and its 10 latest examples. Rules are the closed set of
 * src/a2a/findings.ts RULES, so memory is bounded by the rule list, not by traffic.
 */
import { RULES, type RuleId } from '../a2a/findings.js';
import { WINDOW_MINUTES } from './minute-ring.js';

export const LATEST_PER_RULE = 10;

export interface FindingExample {
  readonly exchangeId: string;
  readonly agent: string;
  readonly at: number;
  readonly detail?: string;
}

interface RuleLog {
  readonly minutes: Float64Array;
  readonly counts: Uint32Array;
  /** Oldest first; at most LATEST_PER_RULE. */
  readonly latest: FindingExample[];
}

export class FindingsLog {
  private readonly byRule = new Map<RuleId, RuleLog>();

  add(rule: RuleId, count: number, example: FindingExample, minute: number): void {
    if (!Object.hasOwn(RULES, rule)) return;
    let log = this.byRule.get(rule);
    if (log === undefined) {
      log = { minutes: new Float64Array(WINDOW_MINUTES).fill(-1), counts: new Uint32Array(WINDOW_MINUTES), latest: [] };
      this.byRule.set(rule, log);
    }
    const i = minute % WINDOW_MINUTES;
    if (log.minutes[i] !== minute) {
      log.minutes[i] = minute;
      log.counts[i] = 0;
    }
    log.counts[i]! += count;
    log.latest.push(example);
    if (log.latest.length > LATEST_PER_RULE) log.latest.shift();
  }

  /** Rules that fired in the window ending at `minute`, with their counts and examples newest first. */
  view(minute: number): Array<{ rule: RuleId; count: number; latest: FindingExample[] }> {
    const oldest = minute - WINDOW_MINUTES + 1;
    const out: Array<{ rule: RuleId; count: number; latest: FindingExample[] }> = [];
    for (const [rule, log] of this.byRule) {
      let count = 0;
      for (let i = 0; i < WINDOW_MINUTES; i++) if (log.minutes[i]! >= oldest) count += log.counts[i]!;
      if (count === 0) continue;
      const since = oldest * 60_000;
      out.push({ rule, count, latest: log.latest.filter((e) => e.at >= since).reverse() });
    }
    return out.sort((a, b) => b.count - a.count);
  }
}
