/**
 * Config reload in worker mode, the one place to wire it: SIGHUP on the primary (or, later,
 * POST /admin/reload on any worker, via `reloadAllWorkers()` in worker.ts) makes the primary
 * send every worker `{ type: 'a2a-gateway:reload', id }`, and each worker runs `reloadWorker`.
 *
 * TODO(reload): call `gateway.reload()` here once src/gateway.ts has it, and answer its outcome.
 */
import type { RunningGateway } from '../gateway.js';
import type { Logger } from '../log.js';

/** The IPC topic (src/cluster/ipc.ts): the message type is `a2a-gateway:reload`. */
export const RELOAD_TOPIC = 'reload';

/** One worker's answer to a reload, as the primary collects them. */
export interface ReloadAnswer {
  readonly worker: number;
  readonly pid: number;
  readonly ok: boolean;
  readonly message: string;
}

/** Runs in the worker; what it returns travels back to the primary (plain data only). */
export async function reloadWorker(
  gateway: RunningGateway | undefined,
  log: Logger,
): Promise<{ ok: boolean; message: string }> {
  if (!gateway) return { ok: false, message: 'still starting' };
  log.info('reload requested');
  log.flush();
  return { ok: true, message: 'reload requested (not implemented yet: the config is unchanged)' };
}
