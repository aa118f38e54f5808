/**
 * One replica's health as this gateway process sees it (docs/fleet.md "Health"): whether it
 * takes new conversations, and the requests it has outstanding (the balancer's measure,
 * replica-pick.ts). Active checks (src/fleet/health-checker.ts, `checked`) and passive outlier
 * ejection (the outcomes of live calls, src/fleet/observer.ts, `called`) move it between healthy,
 * unhealthy and ejected; drain is the operator's. Every move is told to `onChange` (the log line
 * and the metrics), once per change.
 *
 * The two signals are kept apart on purpose: a check is the gateway's own question, asked on a
 * timer, and needs `unhealthyThreshold` failures in a row; live calls fail in bursts when a
 * replica dies, and `consecutiveFailures` of them eject it at once for `ejectionTime`, long
 * before a slow check interval would notice.
 */
export type HealthState = 'healthy' | 'unhealthy' | 'ejected';

export const HEALTH_STATES = ['healthy', 'unhealthy', 'ejected'] as const satisfies readonly HealthState[];

/** The thresholds of `agents.{name}.health` (src/config/fleet-schema.ts) that the state machine reads. */
export interface HealthPolicy {
  readonly healthyThreshold: number;
  readonly unhealthyThreshold: number;
  /** Live-call failures in a row that eject the replica; 0: passive ejection off. */
  readonly consecutiveFailures: number;
  readonly ejectionTime: number;
}

export interface HealthChange {
  readonly from: HealthState;
  readonly to: HealthState;
  readonly reason: string;
}

/** The last active check: when, whether it passed, and what it met. */
export interface CheckResult {
  readonly at: number;
  readonly ok: boolean;
  readonly detail: string;
}

/** Without a config (tests of the picker): the schema's defaults. */
const DEFAULT_POLICY: HealthPolicy = {
  healthyThreshold: 2,
  unhealthyThreshold: 3,
  consecutiveFailures: 5,
  ejectionTime: 30_000,
};

export class ReplicaHealth {
  state: HealthState = 'healthy';
  /** Set by config or the admin endpoint: no new conversations; tasks keep their affinity. */
  drained: boolean;
  /** Calls sent to this replica and not yet finished. */
  outstanding = 0;
  /** Active checks passed / failed in a row (one resets the other). */
  checkPasses = 0;
  checkFailures = 0;
  /** Live calls failed in a row (a call that reached the replica and was answered resets it). */
  callFailures = 0;
  lastCheck: CheckResult | undefined;
  /** Told every state change (src/fleet/health-monitor.ts logs and counts it). */
  onChange: ((change: HealthChange) => void) | undefined;
  private ejection: NodeJS.Timeout | undefined;
  /** When the current ejection ends (epoch ms), for a reload to carry it over. */
  private ejectedUntil = 0;

  constructor(
    drained: boolean,
    private readonly policy: HealthPolicy = DEFAULT_POLICY,
  ) {
    this.drained = drained;
  }

  /** Takes calls: healthy (an unhealthy or ejected replica may still get them when none is). */
  get healthy(): boolean {
    return this.state === 'healthy';
  }

  /** An active check's result. */
  checked(ok: boolean, detail: string, at = Date.now()): void {
    this.lastCheck = { at, ok, detail };
    const { healthyThreshold, unhealthyThreshold } = this.policy;
    if (ok) {
      this.checkFailures = 0;
      this.checkPasses++;
      if (!this.healthy && this.checkPasses >= healthyThreshold)
        this.move('healthy', `${this.checkPasses} health check(s) passed`);
      return;
    }
    this.checkPasses = 0;
    this.checkFailures++;
    if (this.state !== 'unhealthy' && this.checkFailures >= unhealthyThreshold)
      this.move('unhealthy', `${this.checkFailures} health check(s) failed: ${detail}`);
  }

  /** A live call's outcome: `ok` when the replica answered (not 5xx), a failure when it could not. */
  called(ok: boolean, detail: string): void {
    if (ok) {
      this.callFailures = 0;
      return;
    }
    this.callFailures++;
    const limit = this.policy.consecutiveFailures;
    if (limit > 0 && this.callFailures >= limit && this.healthy) this.eject(detail);
  }

  /**
   * A reload's new generation takes over what this process knew of an unchanged replica, so a
   * reload does not send new conversations to a replica just found dead. Unhealthy carries over
   * only while active checks are on (without them nothing would ever bring it back); an ejection
   * keeps its end. Not a change: nothing is told.
   */
  carryOver(previous: ReplicaHealth, checksOn: boolean): void {
    this.lastCheck = previous.lastCheck;
    this.checkPasses = previous.checkPasses;
    this.checkFailures = previous.checkFailures;
    this.callFailures = previous.callFailures;
    if (previous.state === 'unhealthy' && checksOn) this.state = 'unhealthy';
    else if (previous.state === 'ejected') this.ejectFor(previous.ejectedUntil - Date.now());
  }

  /** The generation is retired: no more timers, no more reports. */
  stop(): void {
    clearTimeout(this.ejection);
    this.ejection = undefined;
    this.onChange = undefined;
  }

  private eject(detail: string): void {
    const failures = this.callFailures;
    // Passes counted before the ejection must not end it at the next check.
    this.checkPasses = 0;
    this.move('ejected', `${failures} live calls failed in a row: ${detail}`);
    this.ejectFor(this.policy.ejectionTime);
  }

  /** Ejected for `ms` more (none left: not ejected); its end is a timer. */
  private ejectFor(ms: number): void {
    if (ms <= 0) return;
    this.state = 'ejected';
    this.ejectedUntil = Date.now() + ms;
    this.ejection = setTimeout(() => {
      if (this.state === 'ejected') this.move('healthy', `ejection time (${this.policy.ejectionTime} ms) over`);
    }, ms);
    this.ejection.unref();
  }

  private move(to: HealthState, reason: string): void {
    const from = this.state;
    if (from === to) return;
    if (from === 'ejected') {
      clearTimeout(this.ejection);
      this.ejection = undefined;
    }
    // A replica back in service starts with a clean count of live failures.
    if (to === 'healthy') this.callFailures = 0;
    this.state = to;
    this.onChange?.({ from, to, reason });
  }
}
