/**
 * Which replica a new conversation goes to: the healthy, undrained replica with the fewest
 * requests outstanding, ties broken round robin. Least-outstanding rather than plain round
 * robin because A2A calls differ by orders of magnitude in length — a blocking send or a stream
 * holds its replica for minutes, a GetTask for a millisecond — and round robin would keep
 * piling new long calls onto a replica already holding many (docs/fleet.md "Balancing").
 * With no healthy replica left, the undrained ones all take traffic ("panic", as Envoy does):
 * a health check that is wrong about every replica must not take the agent down. Pure but for
 * the rotating start.
 */
import type { Replica } from './replica.js';

export class ReplicaPicker {
  private next = 0;

  constructor(private readonly replicas: readonly Replica[]) {}

  /** Undefined only when every replica is drained. */
  pick(): Replica | undefined {
    const { replicas } = this;
    if (replicas.length === 1) return replicas[0]!.health.drained ? undefined : replicas[0];
    const start = this.next++ % replicas.length;
    return this.best(start, true) ?? this.best(start, false);
  }

  /** For the gateway's own calls (card fetches): any replica, drained or not, healthy first. */
  any(): Replica {
    return this.pick() ?? this.best(0, true) ?? this.replicas[0]!;
  }

  private best(start: number, healthyOnly: boolean): Replica | undefined {
    const { replicas } = this;
    let best: Replica | undefined;
    for (let i = 0; i < replicas.length; i++) {
      const replica = replicas[(start + i) % replicas.length]!;
      const { health } = replica;
      if (health.drained || (healthyOnly && !health.healthy)) continue;
      if (!best || health.outstanding < best.health.outstanding) best = replica;
    }
    return best;
  }
}
