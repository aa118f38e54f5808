/**
 * Config reload in worker mode (docs/operations.md "Reloading the configuration"): SIGHUP on the primary, or
 * `POST /admin/reload` on any worker (`reloadAllWorkers()` in worker.ts, through the primary),
 * makes the primary send every worker `{ type: 'a2a-gateway:reload', id }`; each worker re-reads
 * the config file and applies it as the single process does (src/reload/from-file.ts), and its
 * report travels back. The answer to `POST /admin/reload` is the workers' reports combined.
 */
import type { RunningGateway } from '../gateway/gateway.js';
import type { Logger } from '../log.js';
import type { ReloadReport } from '../reload/report.js';

/** The IPC topic (src/cluster/ipc.ts): the message type is `a2a-gateway:reload`. */
export const RELOAD_TOPIC = 'reload';

/** Re-reads the config file and applies it to this worker's gateway (the CLI's reloadFromFile). */
export type ReloadOwn = (gateway: RunningGateway) => ReloadReport | Promise<ReloadReport>;

/** One worker's answer to a reload, as the primary collects them. */
export interface ReloadAnswer {
  readonly worker: number;
  readonly pid: number;
  readonly report: ReloadReport;
}

/** Runs in the worker; what it returns travels back to the primary (plain data only). */
export async function reloadWorker(
  gateway: RunningGateway | undefined,
  log: Logger,
  reloadOwn: ReloadOwn,
): Promise<ReloadReport> {
  if (!gateway) return { ok: false, at: new Date().toISOString(), errors: ['(worker): still starting'] };
  const report = await reloadOwn(gateway);
  log.flush();
  return report;
}

/** The workers' reports as one: applied only if every worker applied it; each worker's errors once. */
export function combinedReport(answers: readonly ReloadAnswer[]): ReloadReport & { workers: object[] } {
  const reports = answers.map((a) => a.report);
  const ok = reports.length > 0 && reports.every((r) => r.ok);
  const errors = [...new Set(reports.flatMap((r) => r.errors))];
  const first = reports.find((r) => r.ok) ?? reports[0];
  return {
    ...first,
    ok,
    at: new Date().toISOString(),
    errors: reports.length === 0 ? ['(cluster): no worker answered'] : errors,
    workers: answers.map((a) => ({ worker: a.worker, pid: a.pid, ok: a.report.ok })),
  };
}
