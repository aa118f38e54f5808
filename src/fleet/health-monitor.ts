/**
 * Health for one config generation (docs/fleet.md "Health"): a checker per replica of every agent
 * configured with `upstreams` and `health.enabled`, and one log line per state change of any
 * replica, told to telemetry too. Started when the generation goes live, stopped when a reload
 * retires it (src/reload/generations.ts) or the gateway stops, so a reload leaves no checker of
 * the old config behind; the replicas both configs have keep their health across it
 * (`carryOver`). Health is per gateway process: each process checks on its own.
 */
import type { Logger } from '../log.js';
import type { Upstream } from '../transport/upstream.js';
import type { Replica } from '../transport/replica.js';
import type { HealthChange } from '../transport/replica-health.js';
import { HealthChecker } from './health-checker.js';

/** Where health events go besides the log (telemetry's counters; src/telemetry/metrics/replica-metrics.ts). */
export interface HealthEvents {
  changed(agent: string, replica: string, change: HealthChange): void;
  checkFailed(agent: string, replica: string): void;
}

export interface HealthMonitor {
  /** Takes over the previous generation's view of the replicas both configs have (a reload). */
  carryOver(previous: object | undefined): void;
  start(): void;
  stop(): void;
}

/** The monitors made here, so a new generation can read the replicas of the one before. */
const replicasOf = new WeakMap<object, ReadonlyMap<string, { health: Replica['health'] }>>();
const keyOf = (agent: string, url: string) => `${agent}\u0000${url}`;

export function healthMonitor(
  upstreams: ReadonlyMap<string, Upstream>,
  log: Logger,
  events: HealthEvents | undefined,
): HealthMonitor {
  const checkers: HealthChecker[] = [];
  const replicas = [...upstreams.values()].flatMap((u) => u.replicas.map((r) => [u, r] as const));
  let started = false;
  const monitor: HealthMonitor = {
    carryOver(previous) {
      const before = previous === undefined ? undefined : replicasOf.get(previous);
      if (!before) return;
      for (const [upstream, replica] of replicas) {
        const old = before.get(keyOf(upstream.name, replica.url));
        const checksOn = upstream.config.replicated && upstream.config.health.enabled;
        if (old) replica.health.carryOver(old.health, checksOn);
      }
    },
    start() {
      if (started) return;
      started = true;
      for (const [upstream, replica] of replicas) {
        replica.health.onChange = (change) => {
          log.info({ agent: upstream.name, replica: replica.url, ...change }, 'replica health changed');
          events?.changed(upstream.name, replica.url, change);
        };
        const checker = checkerOf(upstream, replica, log, events);
        if (checker) checkers.push(checker);
      }
      for (const checker of checkers) checker.start();
    },
    stop() {
      for (const checker of checkers.splice(0)) checker.stop();
      for (const [, replica] of replicas) replica.health.stop();
    },
  };
  replicasOf.set(monitor, new Map(replicas.map(([u, r]) => [keyOf(u.name, r.url), r])));
  return monitor;
}

/** Only replicated agents are checked: an agent given as `url` has nowhere else to send its calls. */
function checkerOf(
  upstream: Upstream,
  replica: Replica,
  log: Logger,
  events: HealthEvents | undefined,
): HealthChecker | undefined {
  const { config } = upstream;
  if (!config.replicated || !config.health.enabled) return undefined;
  const settings = {
    path: upstream.basePath + (config.health.path ?? config.cardPath),
    interval: config.health.interval,
    timeout: config.health.timeout,
    headers: Object.fromEntries(upstream.extraHeaders),
  };
  return new HealthChecker(replica, settings, (ok, detail) => {
    if (!ok) {
      events?.checkFailed(upstream.name, replica.url);
      log.debug({ agent: upstream.name, replica: replica.url, detail }, 'replica health check failed');
    }
    replica.health.checked(ok, detail);
  });
}
