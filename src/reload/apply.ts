/**
 * Applying a reload to a running gateway (issue #14 item 3): an already validated config becomes
 * a new generation (generation.ts) that new requests get, while exchanges in flight finish on
 * the one they started on; a refused config (invalid: src/reload/from-file.ts) leaves the running
 * one. Either way the outcome is logged, counted (a2a_config_reloads_total,
 * a2a_config_last_reload_success) and kept for `/readyz`. Both run synchronously, so two
 * reloads cannot interleave.
 */
import type { Server } from 'node:http';
import type { GatewayConfig } from '../config/schema.js';
import { retuneClientLimits } from '../transport/client-limits.js';
import { buildGeneration, type Generation, type Shared } from './generation.js';
import type { Generations } from './generations.js';
import { lastReloadOf, refusedReport, type LastReload, type ReloadReport } from './report.js';
import { restartOnlyChanges, withRunningRestartOnly } from './restart-only.js';

export interface ReloadTarget {
  readonly generations: Generations;
  readonly shared: Shared;
  /** Where the admin catalog says a generation's agents are served. */
  readonly publicBase: (config: GatewayConfig) => () => string;
  /** The listeners, whose live client limits a reload retunes. */
  readonly servers: () => readonly Server[];
  /** The last reload, as `/readyz` shows it. */
  readonly state: { lastReload: LastReload | undefined };
}

/** Makes `next` the config of new requests; restart-only keys keep their running values. */
export function applyConfig(target: ReloadTarget, next: GatewayConfig): ReloadReport {
  const running = target.generations.current.config;
  const needsRestart = restartOnlyChanges(running, next);
  const effective = withRunningRestartOnly(running, next);
  let generation: Generation;
  try {
    generation = buildGeneration(effective, target.shared, target.publicBase(effective));
  } catch (err) {
    return refuseConfig(target, [`(root): the config could not be applied: ${(err as Error).message}`]);
  }
  target.generations.swap(generation);
  for (const server of target.servers()) retuneClientLimits(server, effective.limits);
  const before = Object.keys(running.agents);
  const agents = Object.keys(effective.agents);
  target.shared.telemetry.setAgents(agents);
  target.shared.console.configure(effective);
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
  const log = target.shared.log;
  log.info({ agents, added: report.added, removed: report.removed }, 'config reloaded');
  if (needsRestart.length > 0)
    log.warn({ keys: needsRestart }, `config reloaded, but changes to ${needsRestart.join(', ')} need a restart`);
  return report;
}

/** Records a config that was refused; `errors` name key paths (`agents.x.url: …`). */
export function refuseConfig(target: ReloadTarget, errors: readonly string[]): ReloadReport {
  const report = refusedReport(errors);
  record(target, report);
  target.shared.log.error({ errors }, `config reload failed, the previous config stays: ${errors.join('; ')}`);
  return report;
}

function record(target: ReloadTarget, report: ReloadReport): void {
  target.state.lastReload = lastReloadOf(report);
  target.shared.telemetry.reloaded(report.ok);
}
