/**
 * One replica's health as this gateway process sees it (docs/fleet.md "Health"): whether it
 * takes new conversations, and the requests it has outstanding (the balancer's measure,
 * pick.ts). Active checks (checker.ts) and passive outlier ejection (the outcomes of live
 * calls, `report`) move it between healthy, unhealthy and ejected; drain is the operator's.
 */
export type HealthState = 'healthy' | 'unhealthy' | 'ejected';

/** What a finished call to the replica says about it. */
export type CallOutcome = 'ok' | 'failure';

export class ReplicaHealth {
  state: HealthState = 'healthy';
  /** Set by config or the admin endpoint: no new conversations; tasks keep their affinity. */
  drained: boolean;
  /** Calls sent to this replica and not yet finished. */
  outstanding = 0;
  constructor(drained: boolean) {
    this.drained = drained;
  }

  /** Takes calls: healthy (an unhealthy or ejected replica may still get them when none is). */
  get healthy(): boolean {
    return this.state === 'healthy';
  }
}
