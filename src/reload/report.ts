/**
 * What a reload says about itself: the answer of `POST /admin/reload`, what
 * SIGHUP logs, and — as `LastReload` — the detail `/readyz` shows on both listeners
 * (src/control/health.ts), so an operator sees that the gateway still serves an older config.
 */

export interface ReloadReport {
  /** True: the config took effect for new requests. False: it was refused; the old one serves. */
  readonly ok: boolean;
  /** When the reload was tried (ISO 8601). */
  readonly at: string;
  /** Why it was refused: `key.path: what is wrong`, as the config loader names them (src/config/load.ts). */
  readonly errors: readonly string[];
  /** The configured agents now, and how they changed. */
  readonly agents?: readonly string[];
  readonly added?: readonly string[];
  readonly removed?: readonly string[];
  /** Keys the new config changes that only a restart applies; they keep their running values. */
  readonly needsRestart?: readonly string[];
}

/** The last reload as `/readyz` shows it; undefined until the first reload. */
export interface LastReload {
  readonly ok: boolean;
  readonly at: string;
  readonly errors?: readonly string[];
}

export function lastReloadOf(report: ReloadReport): LastReload {
  return report.ok ? { ok: true, at: report.at } : { ok: false, at: report.at, errors: report.errors };
}

/** The report of a config that was refused. */
export function refusedReport(errors: readonly string[]): ReloadReport {
  return { ok: false, at: new Date().toISOString(), errors };
}
