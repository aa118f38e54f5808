/**
 * A cluster worker (`workers` > 1): the same gateway as the single process (src/gateway/gateway.ts),
 * whose listeners node:cluster shares with the other workers. What only the whole cluster knows
 * (/metrics, /exchanges, /admin/replicas and drains) the worker asks the primary for (src/cluster/primary.ts); what the
 * primary asks of it (its registry, its recent exchanges, a reload) it answers here.
 *
 * Signals: SIGTERM drains like the single process. SIGINT and SIGHUP are ignored: in a terminal,
 * Ctrl-C (and a hangup) reach the whole process group, and the primary answers them by sending
 * every worker SIGTERM (or a reload message); a worker stopping on its own would look like a
 * crash to the primary and be replaced, and SIGHUP's default action would kill it.
 */
import cluster from 'node:cluster';
import type { GatewayConfig } from '../config/schema.js';
import { startGateway, type RunningGateway } from '../gateway/gateway.js';
import { createLogger } from '../log.js';
import type { RecentQuery } from '../inspect/recent.js';
import { Asker, answer, isQuestion, type Handlers, type Send } from './ipc.js';
import { askPrimaryForMetrics } from './metrics.js';
import { RELOAD_TOPIC, combinedReport, reloadWorker, type ReloadAnswer, type ReloadOwn } from './reload.js';
import { serialised } from '../reload/from-file.js';
import { replicasOfAllWorkers } from './replicas.js';

/** How long a worker waits for the primary's answer (the primary waits less for each worker). */
const ASK_PRIMARY_MS = 5000;

const asker = new Asker();
const toPrimary: Send = (message) => process.send?.(message, undefined, undefined, () => {});

/** Asks the primary `topic`; for the admin endpoints that need every worker. */
export function askPrimary(topic: string, body?: unknown): Promise<unknown> {
  return asker.ask(toPrimary, topic, body, ASK_PRIMARY_MS);
}

/** For POST /admin/reload in worker mode: the primary relays a reload to every worker and
 * returns each one's answer (src/cluster/primary.ts, `reload-all`). */
export async function reloadAllWorkers(): Promise<ReloadAnswer[]> {
  return (await askPrimary('reload-all')) as ReloadAnswer[];
}

/** `reloadOwn` re-reads the config file and applies it to this worker (src/cli.ts passes it). */
export async function runWorker(
  config: GatewayConfig,
  onStartFailure: (err: Error) => never,
  reloadOwn: ReloadOwn,
): Promise<void> {
  const id = cluster.worker?.id ?? 0;
  const log = createLogger(config.log.level).child({ worker: id, pid: process.pid });
  // The primary asks only workers that said `listening`; until then there is nothing to answer.
  const started: { gateway?: RunningGateway } = {};
  const reloadHere = serialised(() => reloadWorker(started.gateway, log, reloadOwn));
  listen(() => started.gateway, reloadHere);
  // A terminal's Ctrl-C or hangup reaches the whole process group: the primary relays them.
  process.on('SIGINT', () => log.debug('SIGINT ignored: the primary stops the workers'));
  process.on('SIGHUP', () => log.debug('SIGHUP ignored: the primary relays reloads'));
  const running = await startGateway(config, {
    env: process.env,
    logger: log,
    announce: false,
    // POST /admin/reload on this worker reloads every worker, through the primary.
    reload: async () => combinedReport(await reloadAllWorkers()),
    adminSources: {
      metrics: askPrimaryForMetrics(askPrimary),
      exchanges: async (query: RecentQuery) => (await askPrimary('exchanges', query)) as readonly object[],
      replicas: replicasOfAllWorkers(askPrimary),
    },
  }).catch(onStartFailure);
  started.gateway = running;
  let stopping = false;
  process.on('SIGTERM', () => {
    if (stopping) return;
    stopping = true;
    void running.close().then(() => process.exit(0));
  });
  toPrimary({ type: 'a2a-gateway:listening', url: running.url, adminUrl: running.adminUrl });
}

/** The primary's questions (src/cluster/primary.ts asks them) and its answers to ours. */
function listen(current: () => RunningGateway | undefined, reload: () => Promise<unknown>): void {
  const handlers: Handlers = {
    'local-metrics': () => current()?.local.metricsJson() ?? [],
    'local-exchanges': (query) => current()?.local.exchanges(query as RecentQuery) ?? [],
    [RELOAD_TOPIC]: reload,
    'local-replicas': () => current()?.local.replicas() ?? { agents: [] },
    'local-drain': (body) => {
      const { agent, url, drained } = body as { agent: string; url: string; drained: boolean };
      return current()?.local.drain(agent, url, drained) ?? { ok: false, message: '(worker): still starting' };
    },
  };
  process.on('message', (message: unknown) => {
    if (asker.receive(message)) return;
    if (isQuestion(message)) void answer(message, handlers, toPrimary);
  });
}
