/**
 * Applying a reload to a running gateway: an already validated config becomes
 * a new generation (built by src/gateway/generation.ts) that new requests get, while exchanges in flight finish on
 * the one they started on; a refused config (invalid: src/reload/from-file.ts) leaves the running
 * one. Either way the outcome is logged, counted (a2a_config_reloads_total,
 * a2a_config_last_reload_success) and kept for `/readyz`. Both run synchronously, so two
 * reloads cannot interleave.
 */
import type { Server } from 'node:http';
import type { GatewayConfig } from '../config/schema.js';
import { retuneClientLimits } from '../transport/client-limits.js';
import type { Logger } from '../log.js';
import type { LiveGeneration } from './lifetime.js';
import type { Generations } from './generations.js';
import { lastReloadOf, refusedReport, type LastReload, type ReloadReport } from './report.js';
import { restartOnlyChanges, withRunningRestartOnly } from './restart-only.js';

export interface ReloadTarget<G extends LiveGeneration> {
  readonly generations: Generations<G>;
  /** Builds the generation of a config (src/gateway/generation.ts); may throw. */
  readonly build: (config: GatewayConfig) => G;
  /** Told the config that was just applied (the metrics' agent label, the console). */
  readonly applied: (config: GatewayConfig) => void;
  /** Told every outcome (a2a_config_reloads_total, a2a_config_last_reload_success). */
  readonly reloaded: (ok: boolean) => void;
  readonly log: Logger;
  /** The listeners, whose live client limits a reload retunes. */
  readonly servers: () => readonly Server[];
  /** The last reload, as `/readyz` shows it. */
  readonly state: { lastReload: LastReload | undefined };
}

/** Makes `next` the config of new requests; restart-only keys keep their running values. */
export function applyConfig<G extends LiveGeneration>(target: ReloadTarget<G>, next: GatewayConfig): ReloadReport {
  const running = target.generations.current.config;
  const needsRestart = restartOnlyChanges(running, next);
  const effective = withRunningRestartOnly(running, next);
  let generation: G;
  try {
    generation = target.build(effective);
  } catch (err) {
    return refuseConfig(target, [`(root): the config could not be applied: ${(err as Error).message}`]);
  }
  target.generations.swap(generation);
  for (const server of target.servers()) retuneClientLimits(server, effective.limits);
  const before = Object.keys(running.agents);
  const agents = Object.keys(effective.agents);
  target.applied(effective);
  const report: ReloadReport = {
    ok: true,
    at: new Date().toISOString(),
    errors: [],
    agents,
    added: agents.filter((name) => !before.includes(name)),
    removed: before.filter((name) => !agents.includes(name)),
    needsRestart,
  };
  record(target, report);
  const { log } = target;
  log.info({ agents, added: report.added, removed: report.removed }, 'config reloaded');
  if (needsRestart.length > 0)
    log.warn({ keys: needsRestart }, `config reloaded, but changes to ${needsRestart.join(', ')} need a restart`);
  return report;
}

/** Records a config that was refused; `errors` name key paths (`agents.x.url: …`). */
export function refuseConfig<G extends LiveGeneration>(
  target: ReloadTarget<G>,
  errors: readonly string[],
): ReloadReport {
  const report = refusedReport(errors);
  record(target, report);
  target.log.error({ errors }, `config reload failed, the previous config stays: ${errors.join('; ')}`);
  return report;
}

function record<G extends LiveGeneration>(target: ReloadTarget<G>, report: ReloadReport): void {
  target.state.lastReload = lastReloadOf(report);
  target.reloaded(report.ok);
}
