/**
 * The primary process in worker mode (`workers` > 1): it serves no traffic itself. It forks the
 * workers (src/cluster/worker.ts; cluster.fork re-runs this CLI, dist/cli.js), which share both
 * listeners through node:cluster; replaces a worker that dies, unless they keep dying
 * (crash-loop.ts); answers the workers' questions that need every worker (/metrics, /exchanges,
 * a reload); and turns signals into the workers' drain (SIGTERM, SIGINT) or reload (SIGHUP).
 * It logs the one "gateway listening" line once every worker listens.
 */
import cluster, { type Worker } from 'node:cluster';
import { availableParallelism } from 'node:os';
import type { GatewayConfig } from '../config/schema.js';
import type { RecentQuery } from '../inspect/recent.js';
import type { ExchangeRecord } from '../exchange/record.js';
import { createLogger, type Logger } from '../log.js';
import { answer, isQuestion, topicOf, type Handlers } from './ipc.js';
import { DeathWindow } from './crash-loop.js';
import { Fleet, sendTo } from './fleet.js';
import { mergeExchanges } from './exchanges.js';
import { clusterExposition } from './metrics.js';
import { RELOAD_TOPIC, type ReloadAnswer } from './reload.js';
import type { ReloadReport } from '../reload/report.js';
import { PAGE_TOKEN_KEY_ENV, newPageTokenKey } from '../access/page-tokens.js';

/** Crash loop: more than `workers` × this many deaths within the window and the primary gives up. */
const DEATHS_PER_WORKER = 3;
const DEATH_WINDOW_MS = 60_000;
/** Past `shutdown.grace` plus this, workers still draining are killed (theirs is bounded too). */
const STOP_MARGIN_MS = 10_000;

interface Primary {
  readonly config: GatewayConfig;
  readonly count: number;
  readonly log: Logger;
  readonly fleet: Fleet;
  readonly deaths: DeathWindow;
  announced: boolean;
  stopping: boolean;
  exitCode: number;
}

/** `workers` from the config: `auto` is one per core. */
export function workerCount(workers: GatewayConfig['workers']): number {
  return workers === 'auto' ? availableParallelism() : workers;
}

export function runPrimary(config: GatewayConfig, count: number): void {
  const log = createLogger(config.log.level).child({ primary: process.pid });
  const p: Primary = {
    config,
    count,
    log,
    // One ListTasks page-token key for all workers: a page sealed by one opens on any (src/access/page-tokens.ts).
    fleet: new Fleet({ [PAGE_TOKEN_KEY_ENV]: newPageTokenKey() }),
    deaths: new DeathWindow(count * DEATHS_PER_WORKER, DEATH_WINDOW_MS),
    announced: false,
    stopping: false,
    exitCode: 0,
  };
  // The workers accept from the shared sockets themselves. Round-robin (the primary accepts and
  // hands each connection over IPC) loses a connection handed to a worker that has just died:
  // measured, the client hangs (>25 s) once every few kills, as the hand-off never completes.
  cluster.schedulingPolicy = cluster.SCHED_NONE;
  const handlers = questionsFromWorkers(p);
  cluster.on('message', (worker, message: unknown) => onMessage(p, handlers, worker, message));
  cluster.on('exit', (worker, code, signal) => onExit(p, worker, code, signal));
  process.on('SIGTERM', () => stop(p, 'SIGTERM'));
  process.on('SIGINT', () => stop(p, 'SIGINT'));
  process.on('SIGHUP', () => void relayReload(p));
  for (let i = 0; i < count; i++) fork(p);
}

function fork(p: Primary): void {
  const worker = p.fleet.fork();
  p.log.info({ worker: worker.id, pid: worker.process.pid }, 'worker forked');
  p.log.flush(); // the primary's lines are rare and worth seeing at once
}

function onMessage(p: Primary, handlers: Handlers, worker: Worker, message: unknown): void {
  if (p.fleet.asker.receive(message)) return;
  if (isQuestion(message)) return void answer(message, handlers, sendTo(worker));
  if (topicOf(message) !== 'listening') return;
  const ready = p.fleet.markReady(worker);
  p.log.info({ worker: worker.id, pid: worker.process.pid }, 'worker listening');
  if (p.announced || ready < p.count) return void p.log.flush();
  p.announced = true;
  const { url, adminUrl } = message as { url: string; adminUrl: string };
  const { metrics, agents } = p.config;
  p.log.info(
    {
      url,
      adminUrl,
      agents: Object.keys(agents),
      metrics: metrics.enabled ? `${adminUrl}${metrics.path}` : 'off',
      workers: p.count,
    },
    'gateway listening',
  );
  p.log.flush();
}

/** What a worker asks that needs every worker (src/cluster/worker.ts asks it). */
function questionsFromWorkers(p: Primary): Handlers {
  return {
    metrics: () => clusterExposition(async () => (await p.fleet.askAll('local-metrics')).map((r) => r.body)),
    exchanges: async (query) => {
      const replies = await p.fleet.askAll('local-exchanges', query);
      const answers = replies.map((r) => ({ pid: r.worker.process.pid!, exchanges: r.body as ExchangeRecord[] }));
      return mergeExchanges(answers, query as RecentQuery, p.config.inspection.recent);
    },
    'reload-all': () => relayReload(p),
    // Health and drain are per worker: the list shows each, a drain reaches them all.
    replicas: async () => ({
      workers: (await p.fleet.askAll('local-replicas')).map((r) => ({
        pid: r.worker.process.pid,
        ...(r.body as object),
      })),
    }),
    'drain-all': async (body) => (await p.fleet.askAll('local-drain', body)).map((r) => r.body),
  };
}

/** SIGHUP (or a worker's `reload-all`): every worker that is up reloads (src/cluster/reload.ts). */
async function relayReload(p: Primary): Promise<ReloadAnswer[]> {
  p.log.info({ workers: p.fleet.readyCount }, 'reload: relaying to the workers');
  const replies = await p.fleet.askAll(RELOAD_TOPIC);
  const answers = replies.map(({ worker, body }) => ({
    worker: worker.id,
    pid: worker.process.pid!,
    report: body as ReloadReport,
  }));
  const summary = answers.map(({ worker, pid, report }) => ({ worker, pid, ok: report.ok, errors: report.errors }));
  p.log.info({ answers: summary }, 'reload: workers answered');
  p.log.flush();
  return answers;
}

function onExit(p: Primary, worker: Worker, code: number | null, signal: string | null): void {
  p.fleet.remove(worker);
  const who = { worker: worker.id, pid: worker.process.pid, code, signal };
  if (p.stopping) {
    if (code !== 0) p.exitCode = 1;
    p.log.info(who, 'worker stopped');
    if (p.fleet.size === 0) exit(p, p.exitCode);
    return;
  }
  if (!p.announced) {
    p.log.error(who, 'a worker could not start: stopping');
    return stop(p, 'start-up failure', 1);
  }
  if (p.deaths.record(Date.now())) {
    const { limit, windowMs } = p.deaths;
    p.log.error({ ...who, deaths: limit + 1, withinMs: windowMs }, 'workers keep dying: giving up');
    return stop(p, 'crash loop', 1);
  }
  p.log.warn(who, 'worker died: forking a replacement');
  fork(p); // flushes the log
}

/** Every worker drains (SIGTERM: the single process's close()), then the primary exits. */
function stop(p: Primary, reason: string, exitCode = 0): void {
  if (p.stopping) {
    if (reason !== 'SIGTERM' && reason !== 'SIGINT') return;
    p.log.warn({ reason }, 'signalled again: killing the workers');
    p.fleet.signalAll('SIGKILL');
    return exit(p, 1);
  }
  p.stopping = true;
  p.exitCode = exitCode;
  p.log.info({ reason, workers: p.fleet.size }, 'stopping the workers');
  if (p.fleet.size === 0) return exit(p, exitCode);
  p.fleet.signalAll('SIGTERM');
  setTimeout(() => {
    p.log.error('workers still draining past shutdown.grace: killing them');
    p.fleet.signalAll('SIGKILL');
    exit(p, 1);
  }, p.config.shutdown.grace + STOP_MARGIN_MS);
}

function exit(p: Primary, code: number): void {
  p.log.info({ code }, 'primary stopped');
  const timer = setTimeout(() => process.exit(code), 2000);
  p.log.flush(() => {
    clearTimeout(timer);
    process.exit(code);
  });
}
