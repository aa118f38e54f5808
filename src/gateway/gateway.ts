/**
 * Builds a gateway from a validated config and serves it: the pieces are made here and handed to
 * each other; nothing below reads the config file or the environment. Two listeners: traffic
 * (`listen`: the agents, health and the public catalog) and admin (`admin.listen`: recorded
 * exchanges, task stories, metrics, the full catalog), so the operator plane can stay private
 * while traffic faces clients. What a config determines for traffic is a generation
 * (src/gateway/generation.ts) that a reload replaces; what is made once here (`Parts`) outlives
 * reloads: the listeners, logger, task tracker, telemetry, observers, recent exchanges.
 */
import { TaskConfirmer, type ConfirmAgent } from '../confirm/confirm.js';
import type { Server } from 'node:http';
import type { ClientCall } from '../exchange/call.js';
import type { GatewayConfig } from '../config/schema.js';
import type { Upstream } from '../transport/upstream.js';
import type { CardCache } from '../cards/cache.js';
import type { CardRegistry } from '../cards/registry.js';
import { ObserverSet, type ExchangeObserver } from '../exchange/exchange.js';
import { observerFailureLog } from '../exchange/observer-failures.js';
import { createGatewayServer } from './server.js';
import { createAdminServer } from './admin-server.js';
import { closeNow, listenAt } from '../transport/listen.js';
import { accessLog } from '../telemetry/access-log.js';
import { createInspector } from '../inspect/inspector.js';
import { InspectionBudget, type InspectionBudgetView } from '../inspect/budget.js';
import { RecentExchanges, type RecentQuery } from '../inspect/recent.js';
import type { ExchangeRecord } from '../exchange/record.js';
import { TaskTracker } from '../tasks/tracker.js';
import { fleetObserver, pinNamings } from '../fleet/observer.js';
import { buildState, type State } from '../state/build.js';
import { idempotentSends } from '../idempotency/step.js';
import { createIdempotencyTap } from '../idempotency/tap.js';
import { createLogger, type Logger } from '../log.js';
import { createTelemetry } from '../telemetry/telemetry.js';
import type { ReplicaView } from '../telemetry/metrics/replica-metrics.js';
import { GATEWAY_VERSION } from '../version.js';
import { buildAccessControl, type AccessControl } from '../access/build.js';
import { buildGeneration, releaseGeneration, type Generation, type Shared } from './generation.js';
import { Generations } from '../reload/generations.js';
import { applyConfig, refuseConfig, type ReloadTarget } from '../reload/apply.js';
import type { LastReload, ReloadReport } from '../reload/report.js';
import type { AdminSources } from '../control/admin-app.js';
import { drainReplica, replicasReport, type DrainResult } from '../control/replicas.js';
import { createConsoleParts } from '../console/console-parts.js';
import type { FeedStats } from '../console/feed.js';
import { closeGrpcListeners, grpcPorts, openGrpcListeners, type GrpcListeners } from '../bindings/grpc/listeners.js';

export type { AdminSources } from '../control/admin-app.js';

export interface RunningGateway {
  /** `http://host:port` of the traffic listener (`listen`). */
  readonly url: string;
  /** `http://host:port` of the admin listener (`admin.listen`). */
  readonly adminUrl: string;
  /** `http://host:port` of the shared gRPC listener (`listen.grpc`), when configured. */
  readonly grpcUrl: string | undefined;
  /** The gRPC ports as bound: the shared one and the agents' own (`agents.{name}.grpc.listen`). */
  readonly grpcPorts: { readonly shared: number | undefined; readonly agents: ReadonlyMap<string, number> };
  readonly server: Server;
  /** The current config generation's card registry (a reload replaces it). */
  readonly registry: CardRegistry;
  readonly tracker: TaskTracker;
  /** The global inspection budget (read-only), or undefined when inspection is off. */
  readonly inspectionBudget: InspectionBudgetView | undefined;
  /** Where Prometheus scrapes (on the admin listener), or undefined when metrics are off. */
  readonly metricsUrl: string | undefined;
  /**
   * Applies an already validated config to new requests; exchanges in flight finish on the old
   * one (src/reload/apply.ts). Restart-only keys keep their running values and are named in the
   * report's `needsRestart`.
   */
  reload(next: GatewayConfig): ReloadReport;
  /** Records a reload refused before it got here (an invalid file): logged, counted, on `/readyz`. */
  refuseReload(errors: readonly string[]): ReloadReport;
  /** The console's live feed right now (src/console/feed.ts): consoles and the bytes waiting for them. */
  feedStats(): FeedStats;
  /** This process's own records, which a cluster worker answers the primary with (src/cluster/worker.ts). */
  readonly local: {
    exchanges(query: RecentQuery): ExchangeRecord[];
    metricsJson(): Promise<readonly unknown[]>;
    /** This process's replicas as `/admin/replicas` lists them. */
    replicas(): object;
    /** Drains (or undrains) one replica in this process. */
    drain(agent: string, url: string, drained: boolean): DrainResult;
  };
  /** Stops accepting, lets exchanges in flight finish for `shutdown.grace`, then ends the rest. */
  close(): Promise<void>;
}

export interface GatewayOptions {
  readonly logger?: Logger;
  /** Extra exchange observers (tests, embedding). */
  readonly observers?: readonly ExchangeObserver[];
  /** OTEL_* variables for tracing (the CLI passes process.env); tracing is off without them. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /**
   * What `POST /admin/reload` runs: the CLI re-reads its config file (src/reload/from-file.ts);
   * a cluster worker relays it to every worker. Without it (an embedded gateway with no file)
   * the endpoint answers 501.
   */
  readonly reload?: () => Promise<ReloadReport>;
  /** Set in a cluster worker (src/cluster/worker.ts): /metrics and /exchanges cover all workers. */
  readonly adminSources?: AdminSources;
  /** False in a cluster worker: the primary logs the one "gateway listening" line (src/cluster/primary.ts). */
  readonly announce?: boolean;
}

/** Everything both listeners, every generation and shutdown share, made once. */
interface Parts extends Shared {
  readonly inspectionBudget: InspectionBudget | undefined;
  readonly state: { draining: boolean; lastReload: LastReload | undefined };
  /** Where task stories, owners and rate-limit counts live (src/state/build.ts). */
  readonly stateStore: State;
  /** The agents configured with `upstreams` in the current config (their tasks are pinned). */
  readonly replicated: Set<string>;
  /** Confirms stale tasks of the agents with `tasks.confirm` (src/confirm/confirm.ts). */
  readonly confirmer: TaskConfirmer;
}

export async function startGateway(config: GatewayConfig, options: GatewayOptions = {}): Promise<RunningGateway> {
  // The metrics read the current generation's replicas, which exist only once it is built.
  const live: { generations?: Generations<Generation> } = {};
  const parts = assemble(config, options, {
    replicas: () => replicaViews(live.generations?.current),
    cardsUp: () => cardsUp(live.generations?.current),
    confirmAgents: () => confirmAgents(live.generations?.current),
  });
  // The listeners read `generations.current` per request; it is set before either listens. The
  // admin catalog names the agents at the traffic listener's address unless `publicUrl` says.
  let url = '';
  const publicBase = (next: GatewayConfig) => () => next.publicUrl ?? url;
  const build = (next: GatewayConfig) => buildGeneration(next, parts, publicBase(next));
  const generations = new Generations(build(config), releaseGeneration, parts.log);
  live.generations = generations;
  const server = createGatewayServer({ handlers: generations, isDraining: parts.isDraining, limits: config.limits });
  const admin = createAdminServer(generations, config.limits);
  let adminUrl: string;
  let grpc: GrpcListeners | undefined;
  try {
    url = await listenAt(server, config.listen, 'listen');
    grpc = await openGrpcListeners(
      config,
      {
        get current() {
          return generations.current.grpc;
        },
      },
      parts.isDraining,
      parts.grpcPorts,
    );
    adminUrl = await listenAt(admin, config.admin.listen, 'admin.listen');
  } catch (err) {
    await closeNow(server);
    await closeNow(admin);
    if (grpc) await closeGrpcListeners(grpc, true);
    await release(parts, generations);
    throw err;
  }
  warnOpenAdmin(config, parts.log);
  warnLocalPageTokens(config, parts.log);
  const metricsUrl = config.metrics.enabled ? `${adminUrl}${config.metrics.path}` : undefined;
  generations.current.registry.start();
  generations.current.health.start();
  parts.confirmer.start();
  const agents = Object.keys(config.agents);
  const tracing = parts.telemetry.tracingEnabled;
  const level = options.announce === false ? 'debug' : 'info';
  const grpcUrl = grpc.url;
  parts.log[level](
    { url, adminUrl, ...(grpcUrl ? { grpcUrl } : {}), agents, tracing, metrics: metricsUrl ?? 'off' },
    'gateway listening',
  );
  parts.log.flush(); // the access log is buffered for throughput; start-up must show at once

  const target: ReloadTarget<Generation> = {
    generations,
    build,
    applied: (next) => {
      parts.telemetry.setAgents(Object.keys(next.agents));
      replaceAll(parts.replicated, replicatedAgents(next));
      parts.console.configure(next);
    },
    reloaded: (ok) => parts.telemetry.reloaded(ok),
    log: parts.log,
    servers: () => [server, admin],
    state: parts.state,
  };
  let closing: Promise<void> | undefined;
  const close = () => (closing ??= shutdown(config, parts, generations, { server, admin, grpc }));
  const { tracker, inspectionBudget } = parts;
  const local = {
    exchanges: (q: RecentQuery) => parts.recent.find(q),
    metricsJson: parts.telemetry.metricsJson,
    replicas: () => replicasReport(generations.current.upstreams),
    drain: (agent: string, url: string, drained: boolean) =>
      drainReplica(generations.current.upstreams, agent, url, drained),
  };
  return {
    url,
    adminUrl,
    grpcUrl,
    grpcPorts: parts.grpcPorts,
    server,
    get registry() {
      return generations.current.registry;
    },
    tracker,
    inspectionBudget,
    metricsUrl,
    reload: (next) => applyConfig(target, next),
    refuseReload: (errors) => refuseConfig(target, errors),
    local,
    feedStats: () => parts.console.feed.stats(),
    close,
  };
}

/** What outlives reloads: logger, task tracker, telemetry, observers, recent exchanges. */
function assemble(
  config: GatewayConfig,
  options: GatewayOptions,
  current: {
    replicas: () => ReplicaView[];
    cardsUp: () => Array<{ agent: string; up: boolean }>;
    confirmAgents: () => ConfirmAgent[];
  },
): Parts {
  const log = options.logger ?? createLogger(config.log.level);
  const stateStore = buildState(config, log);
  const tracker = new TaskTracker(stateStore.store);
  const replicated = replicatedAgents(config);
  tracker.onNamed(pinNamings(stateStore.pins, (agent) => replicated.has(agent)));
  const inspectionBudget = config.inspection.enabled ? new InspectionBudget(config.inspection.budgetBytes) : undefined;
  const telemetry = createTelemetry({
    agents: Object.keys(config.agents),
    tracker,
    storeStatus: stateStore.status,
    replicas: current.replicas,
    cardsUp: current.cardsUp,
    windowWriteFailures: () => stateStore.windows.failures,
    env: options.env ?? {},
    serviceVersion: GATEWAY_VERSION,
    metrics: config.metrics.enabled,
    processMetrics: config.metrics.processMetrics,
    tracingLog: { warn: (message) => log.warn(message), error: (message, err) => log.error({ err }, message) },
  });
  for (const warning of telemetry.warnings) log.warn(warning);
  const recent = new RecentExchanges(config.inspection.recent);
  const confirmer = new TaskConfirmer({
    agents: current.confirmAgents,
    tracker,
    pins: stateStore.pins,
    log,
    counted: (agent, outcome) => telemetry.taskConfirmed(agent, outcome),
  });
  const state: Parts['state'] = { draining: false, lastReload: undefined };
  // What the observers read, made once and handed on as they are.
  const observed = { log, tracker, inspectionBudget, recent, telemetry, console: createConsoleParts(config) };
  return {
    ...observed,
    observers: observersOf(config, options, observed),
    accessControl: (next, upstreams, cards) => accessControlOf(next, upstreams, cards, stateStore, options.env ?? {}),
    reload: options.reload,
    adminSources: options.adminSources,
    state,
    stateStore,
    confirmer,
    pins: stateStore.pins,
    healthEvents: telemetry.replicaEvents,
    replicated,
    idempotency: idempotentSends(stateStore.idempotency),
    windows: stateStore.windows,
    isDraining: () => state.draining,
    stateReady: stateStore.ready,
    lastReload: () => state.lastReload,
    grpcPorts: grpcPorts(),
  };
}

/** Each agent with the target its card gives the gateway's own GetTask (src/confirm/confirm.ts). */
function confirmAgents(generation: Generation | undefined): ConfirmAgent[] {
  if (!generation) return [];
  return [...generation.upstreams.values()].map((upstream) => ({
    upstream,
    target: () => generation.registry.confirmTarget(upstream.name),
  }));
}

/** Each agent's card, available or not, as `a2a_agent_card_up` reads it (issue #30). */
function cardsUp(generation: Generation | undefined): Array<{ agent: string; up: boolean }> {
  if (!generation) return [];
  return generation.registry.cardStates().map(({ agent, state }) => ({ agent, up: state === 'available' }));
}

/** The replicas of the agents configured with `upstreams`, as the a2a_replica_* gauges read them. */
function replicaViews(generation: Generation | undefined): ReplicaView[] {
  if (!generation) return [];
  return [...generation.upstreams.values()]
    .filter((u) => u.config.replicated)
    .flatMap((u) =>
      u.replicas.map((r) => ({
        agent: u.name,
        replica: r.url,
        state: r.health.state,
        outstanding: r.health.outstanding,
      })),
    );
}

/** The agents configured with `upstreams`: only their tasks and conversations are pinned. */
function replicatedAgents(config: GatewayConfig): Set<string> {
  return new Set(Object.entries(config.agents).flatMap(([name, a]) => (a.replicated ? [name] : [])));
}

function replaceAll<T>(set: Set<T>, next: ReadonlySet<T>): void {
  set.clear();
  for (const item of next) set.add(item);
}

/** Access control, reading task owners from the state store and push capability from the cards. */
function accessControlOf(
  config: GatewayConfig,
  upstreams: ReadonlyMap<string, Upstream>,
  cards: CardCache,
  state: State,
  env: Readonly<Record<string, string | undefined>>,
): AccessControl {
  return buildAccessControl(config, {
    env,
    taskOwners: (agent, ids) => state.store.ownersOf(agent, ids),
    contextOwners: (agent, ids) => state.store.contextOwnersOf(agent, ids),
    sharedCounts: state.sharedCounts,
    pushCapable: async (agent) => {
      const upstream = upstreams.get(agent)!;
      const cached = await cards.get(upstream, upstream.config.cardPath, {}).catch(() => undefined);
      const capabilities = cached?.card?.['capabilities'] as { pushNotifications?: unknown } | undefined;
      // No card to go by: assume it may (a body that cannot be checked is then refused).
      return cached?.card === undefined || capabilities?.pushNotifications === true;
    },
  });
}

/** Observers run in this order: inspection fills the record; telemetry (traces, then metrics)
 * reads it; the console counts it and feeds it; the access log comes last so it can carry the
 * trace id. */
function observersOf(
  config: GatewayConfig,
  options: GatewayOptions,
  p: Pick<Parts, 'log' | 'tracker' | 'inspectionBudget' | 'recent' | 'telemetry' | 'console'>,
): ObserverSet {
  return new ObserverSet(
    [
      ...(p.inspectionBudget
        ? [
            createInspector({
              maxBytes: config.inspection.maxBytes,
              streamEvents: config.inspection.streamEvents,
              tracker: p.tracker,
              budget: p.inspectionBudget,
            }),
          ]
        : []),
      // Right after inspection: a first idempotent send's outcome is read from its facts.
      createIdempotencyTap(),
      ...p.telemetry.observers,
      fleetObserver(),
      ...(options.observers ?? []),
      p.recent.observer,
      // The console's (src/console/): counts always (cheap), the feed only while a console reads.
      p.console.stats.observer,
      p.console.feed.observer,
      ...(config.log.access ? [accessLog(p.log)] : []),
    ],
    observerFailureLog(p.log),
  );
}

/** Traffic drains first (readiness says so on both listeners), then the admin listener closes.
 * Exchanges in flight on every generation (current and retired by reloads) are waited for. */
async function shutdown(
  config: GatewayConfig,
  p: Parts,
  generations: Generations<Generation>,
  { server, admin, grpc }: { server: Server; admin: Server; grpc: GrpcListeners },
): Promise<void> {
  p.state.draining = true;
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const grpcClosed = closeGrpcListeners(grpc); // GOAWAY: calls in flight run on
  const deadline = Date.now() + config.shutdown.grace;
  while (generations.inFlight().length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  const ending = generations.inFlight();
  for (const exchange of ending) exchange.terminate();
  // The answers just written (503s, last events) leave before the connections close.
  await settledWithin(
    ending.map((e) => e.call),
    1000,
  );
  server.closeAllConnections();
  await closeGrpcListeners(grpc, true);
  await Promise.all([closed, grpcClosed]);
  p.console.feed.close(); // live consoles never end by themselves: end them with the listener
  await closeNow(admin);
  await release(p, generations);
  p.log.info('gateway stopped');
  // The log is written in batches: wait until the last one is out (bounded, never hangs).
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, 2000);
    p.log.flush(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** What outlives the listeners: queued spans, the state store's connection, every generation's
 * card retries and upstream pools. */
async function release(p: Parts, generations: Generations<Generation>): Promise<void> {
  p.confirmer.stop();
  p.console.feed.close();
  await p.telemetry.shutdown();
  await p.stateStore.store.close();
  await generations.releaseAll();
}

/** Resolves once every response has finished or closed, or after `ms`. */
function settledWithin(calls: readonly ClientCall[], ms: number): Promise<void> {
  const each = calls.map((call) =>
    call.closed ? Promise.resolve() : new Promise<void>((r) => call.onClose(() => r())),
  );
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    void Promise.all(each).then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/**
 * With a shared store the gateway runs as several replicas: a ListTasks page token sealed with one
 * replica's own key does not open on another (src/access/page-tokens.ts). Said once at start-up.
 */
function warnLocalPageTokens(config: GatewayConfig, log: Logger): void {
  if (config.auth === undefined || config.auth.pageTokenSecret !== undefined || config.state.store !== 'redis') return;
  log.warn(
    'state.store is redis but auth.pageTokenSecret is not set: a ListTasks page token works only on the replica that issued it; set the same secret on every replica',
  );
}

/**
 * The admin listener names the fleet's insides and reloads the config: on an address others can
 * reach, without `admin.token`, that is everyone's (issue #29). Said once at start-up.
 */
function warnOpenAdmin(config: GatewayConfig, log: Logger): void {
  const host = config.admin.listen.host;
  const loopback = host === 'localhost' || host === '::1' || host.startsWith('127.');
  if (config.admin.token !== undefined || loopback) return;
  log.warn(
    { adminListen: `${host}:${config.admin.listen.port}` },
    'the admin listener is on a non-loopback address without admin.token: anyone who reaches it can read the fleet and reload the config',
  );
}
