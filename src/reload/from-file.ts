/**
 * The reload as the CLI runs it, on SIGHUP and for `POST /admin/reload` (src/cli.ts): re-read and
 * validate the config file (src/config/load.ts), then apply it, or record why it was refused —
 * the loader's problems name key paths (`agents.x.url: must be …`). Reloads are serialised: one
 * runs to its end before the next reads the file.
 */
import { ConfigError, loadConfigFile } from '../config/load.js';
import type { GatewayConfig } from '../config/schema.js';
import type { ReloadReport } from './report.js';

/** What a reload needs of a running gateway (src/gateway/gateway.ts RunningGateway). */
export interface Reloadable {
  reload(next: GatewayConfig): ReloadReport;
  refuseReload(errors: readonly string[]): ReloadReport;
}

/**
 * Reads `file` and reloads `gateway` with it. `adjust` applies what the command line overrides
 * (`--host`, `--port`), as at start-up, so an unchanged file does not read as a changed `listen`.
 */
export function reloadFromFile(
  file: string,
  gateway: Reloadable,
  adjust: (config: GatewayConfig) => void = () => {},
): ReloadReport {
  let next: GatewayConfig;
  try {
    next = loadConfigFile(file);
  } catch (err) {
    if (err instanceof ConfigError) return gateway.refuseReload(err.problems);
    return gateway.refuseReload([`(root): ${(err as Error).message}`]);
  }
  adjust(next);
  return gateway.reload(next);
}

/** `run`, one call at a time: a call made while one runs starts when it has finished. */
export function serialised<T>(run: () => T | Promise<T>): () => Promise<T> {
  let last: Promise<unknown> = Promise.resolve();
  return () => {
    const next = last.then(() => run());
    last = next.catch(() => undefined);
    return next;
  };
}
