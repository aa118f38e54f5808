/**
 * Builds a gateway from a validated config and serves it: the pieces are made here, once, and
 * handed to each other; nothing below reads the config file or the environment. Two listeners:
 * traffic (`listen`: the agents, health and the public catalog) and admin (`admin.listen`:
 * recorded exchanges, task stories, metrics, the full catalog), so the operator plane can stay
 * private while traffic faces clients.
 */
import type { Server, ServerResponse } from 'node:http';
import type { GatewayConfig } from './config/schema.js';
import { closeUpstream, createUpstream, type Upstream } from './transport/upstream.js';
import { CardCache } from './cards/cache.js';
import { CardRegistry } from './cards/registry.js';
import { createAgentPipeline } from './proxy/pipeline.js';
import { ObserverSet, type Exchange, type ExchangeObserver } from './exchange/exchange.js';
import { observerFailureLog } from './exchange/observer-failures.js';
import { PeerTrust } from './proxy/public-url.js';
import { createControlApp } from './control/app.js';
import { createAdminApp } from './control/admin-app.js';
import { createGatewayServer } from './server.js';
import { createAdminServer } from './admin-server.js';
import { closeNow, listenAt } from './transport/listen.js';
import { accessLog } from './telemetry/access-log.js';
import { createInspector } from './inspect/inspector.js';
import { InspectionBudget, type InspectionBudgetView } from './inspect/budget.js';
import { RecentExchanges, type RecentQuery } from './inspect/recent.js';
import type { ExchangeRecord } from './exchange/record.js';
import { InMemoryTaskStore, TaskTracker } from './tasks/tracker.js';
import { createLogger, type Logger } from './log.js';
import { createTelemetry, type Telemetry } from './telemetry/telemetry.js';
import { GATEWAY_VERSION } from './version.js';
import { buildAccessControl, cardSecurityOf, type AccessControl } from './access/build.js';

export interface RunningGateway {
  /** `http://host:port` of the traffic listener (`listen`). */
  readonly url: string;
  /** `http://host:port` of the admin listener (`admin.listen`). */
  readonly adminUrl: string;
  readonly server: Server;
  readonly registry: CardRegistry;
  readonly tracker: TaskTracker;
  /** The global inspection budget (read-only), or undefined when inspection is off. */
  readonly inspectionBudget: InspectionBudgetView | undefined;
  /** Where Prometheus scrapes (on the admin listener), or undefined when metrics are off. */
  readonly metricsUrl: string | undefined;
  /** This process's own records, which a cluster worker answers the primary with (src/cluster/worker.ts). */
  readonly local: {
    exchanges(query: RecentQuery): ExchangeRecord[];
    metricsJson(): Promise<readonly unknown[]>;
  };
  /** Stops accepting, lets exchanges in flight finish for `shutdown.grace`, then ends the rest. */
  close(): Promise<void>;
}

/** What the admin listener serves from elsewhere than this process: every worker's, in a cluster worker. */
export interface AdminSources {
  readonly metrics: () => Promise<Response>;
  readonly exchanges: (query: RecentQuery) => Promise<readonly object[]>;
}

export interface GatewayOptions {
  readonly logger?: Logger;
  /** Extra exchange observers (tests, embedding). */
  readonly observers?: readonly ExchangeObserver[];
  /** OTEL_* variables for tracing (the CLI passes process.env); tracing is off without them. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Set in a cluster worker (src/cluster/worker.ts): /metrics and /exchanges cover all workers. */
  readonly adminSources?: AdminSources;
  /** False in a cluster worker: the primary logs the one "gateway listening" line (src/cluster/primary.ts). */
  readonly announce?: boolean;
}

/** Everything both listeners and shutdown share, made once. */
interface Parts {
  readonly log: Logger;
  readonly upstreams: ReadonlyMap<string, Upstream>;
  readonly cards: CardCache;
  readonly registry: CardRegistry;
  readonly trust: PeerTrust;
  readonly inFlight: Set<Exchange>;
  readonly tracker: TaskTracker;
  readonly inspectionBudget: InspectionBudget | undefined;
  readonly recent: RecentExchanges;
  readonly telemetry: Telemetry;
  readonly observers: ObserverSet;
  readonly access: AccessControl;
  readonly state: { draining: boolean };
  readonly isDraining: () => boolean;
}

export async function startGateway(config: GatewayConfig, options: GatewayOptions = {}): Promise<RunningGateway> {
  const parts = assemble(config, options);
  const server = trafficServer(config, parts);
  let admin: Server;
  let url: string;
  let adminUrl: string;
  try {
    url = await listenAt(server, config.listen, 'listen');
    admin = adminServer(config, parts, config.publicUrl ?? url, options.adminSources);
    adminUrl = await listenAt(admin, config.admin.listen, 'admin.listen');
  } catch (err) {
    await closeNow(server);
    await release(parts);
    throw err;
  }
  const metricsUrl = config.metrics.enabled ? `${adminUrl}${config.metrics.path}` : undefined;
  parts.registry.start();
  const agents = [...parts.upstreams.keys()];
  const tracing = parts.telemetry.tracingEnabled;
  const level = options.announce === false ? 'debug' : 'info';
  parts.log[level]({ url, adminUrl, agents, tracing, metrics: metricsUrl ?? 'off' }, 'gateway listening');
  parts.log.flush(); // the access log is buffered for throughput; start-up must show at once

  let closing: Promise<void> | undefined;
  const close = () => (closing ??= shutdown(config, parts, server, admin));
  const { registry, tracker, inspectionBudget } = parts;
  const local = { exchanges: (q: RecentQuery) => parts.recent.find(q), metricsJson: parts.telemetry.metricsJson };
  return { url, adminUrl, server, registry, tracker, inspectionBudget, metricsUrl, local, close };
}

function assemble(config: GatewayConfig, options: GatewayOptions): Parts {
  const log = options.logger ?? createLogger(config.log.level);
  const upstreams = new Map<string, Upstream>(
    Object.entries(config.agents).map(([name, agent]) => [name, createUpstream(name, agent)]),
  );
  const cards = new CardCache({ maxAgeMs: config.cards.maxAge, maxBytes: config.cards.maxBytes, log });
  const tracker = new TaskTracker(
    new InMemoryTaskStore({ maxTasks: config.tasks.maxTracked, ttlMs: config.tasks.ttl }),
  );
  const inspectionBudget = config.inspection.enabled ? new InspectionBudget(config.inspection.budgetBytes) : undefined;
  const telemetry = createTelemetry({
    agents: [...upstreams.keys()],
    tracker,
    env: options.env ?? {},
    serviceVersion: GATEWAY_VERSION,
    metrics: config.metrics.enabled,
    processMetrics: config.metrics.processMetrics,
    tracingLog: { warn: (message) => log.warn(message), error: (message, err) => log.error({ err }, message) },
  });
  for (const warning of telemetry.warnings) log.warn(warning);
  const recent = new RecentExchanges(config.inspection.recent);
  const state = { draining: false };
  return {
    log,
    upstreams,
    cards,
    registry: new CardRegistry(upstreams, cards, config.cards.retry, log, cardSecurityOf(config)),
    trust: new PeerTrust(config.trustedProxies),
    inFlight: new Set<Exchange>(),
    tracker,
    inspectionBudget,
    recent,
    telemetry,
    observers: observersOf(config, options, { log, tracker, inspectionBudget, recent, telemetry }),
    access: accessControlOf(config, upstreams, cards, tracker),
    state,
    isDraining: () => state.draining,
  };
}

/** Access control, reading task owners from the tracker and push capability from the cards. */
function accessControlOf(
  config: GatewayConfig,
  upstreams: ReadonlyMap<string, Upstream>,
  cards: CardCache,
  tracker: TaskTracker,
): AccessControl {
  return buildAccessControl(config, {
    ownerOf: (agent, taskId) => tracker.store.ownerOf(agent, taskId),
    contextOwnerOf: (agent, contextId) => tracker.store.contextOwnerOf(agent, contextId),
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
 * reads it; the access log comes last so it can carry the trace id. */
function observersOf(
  config: GatewayConfig,
  options: GatewayOptions,
  p: Pick<Parts, 'log' | 'tracker' | 'inspectionBudget' | 'recent' | 'telemetry'>,
): ObserverSet {
  return new ObserverSet(
    [
      ...(p.inspectionBudget
        ? [createInspector({ maxBytes: config.inspection.maxBytes, tracker: p.tracker, budget: p.inspectionBudget })]
        : []),
      ...p.telemetry.observers,
      ...(options.observers ?? []),
      p.recent.observer,
      ...(config.log.access ? [accessLog(p.log)] : []),
    ],
    observerFailureLog(p.log),
  );
}

/** The traffic listener: the agent pipeline, health and the public catalog. */
function trafficServer(config: GatewayConfig, p: Parts): Server {
  const handleAgentRequest = createAgentPipeline({
    upstreams: p.upstreams,
    cards: p.cards,
    trust: p.trust,
    publicUrl: config.publicUrl,
    observers: p.observers,
    inFlight: p.inFlight,
    inspectBytes: config.inspection.enabled ? config.inspection.maxBytes : 0,
    limits: config.limits,
    queryStrings: config.log.queryStrings,
    access: p.access.gate,
    cardSecurity: p.access.cardSecurity,
  });
  const control = createControlApp({
    upstreams: p.upstreams,
    registry: p.registry,
    trust: p.trust,
    publicUrl: config.publicUrl,
    isDraining: p.isDraining,
    mayList: (req, agent) => p.access.gate.mayList(req, agent),
  });
  return createGatewayServer({
    handleAgentRequest,
    agentNames: new Set(p.upstreams.keys()),
    control,
    isDraining: p.isDraining,
    trust: p.trust,
    limits: config.limits,
  });
}

/** The admin listener; `publicBase` is where the catalog says the agents are served. */
function adminServer(config: GatewayConfig, p: Parts, publicBase: string, sources?: AdminSources): Server {
  const app = createAdminApp({
    upstreams: p.upstreams,
    registry: p.registry,
    publicBase,
    isDraining: p.isDraining,
    recent: p.recent,
    exchanges: sources?.exchanges,
    tracker: p.tracker,
    metrics: config.metrics.enabled
      ? { path: config.metrics.path, handler: sources?.metrics ?? p.telemetry.metricsHandler }
      : undefined,
    token: config.admin.token,
  });
  return createAdminServer(app, config.limits);
}

/** Traffic drains first (readiness says so on both listeners), then the admin listener closes. */
async function shutdown(config: GatewayConfig, p: Parts, server: Server, admin: Server): Promise<void> {
  p.state.draining = true;
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const deadline = Date.now() + config.shutdown.grace;
  while (p.inFlight.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  const ending = [...p.inFlight];
  for (const exchange of ending) exchange.terminate();
  // The answers just written (503s, last events) leave before the connections close.
  await settledWithin(
    ending.map((e) => e.res),
    1000,
  );
  server.closeAllConnections();
  await closed;
  await closeNow(admin);
  await release(p);
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

/** What outlives the listeners: queued spans, card retries, upstream pools. */
async function release(p: Parts): Promise<void> {
  await p.telemetry.shutdown();
  p.registry.stop();
  await Promise.all([...p.upstreams.values()].map(closeUpstream));
}

/** Resolves once every response has finished or closed, or after `ms`. */
function settledWithin(responses: readonly ServerResponse[], ms: number): Promise<void> {
  const each = responses.map((res) =>
    res.writableFinished || res.destroyed ? Promise.resolve() : new Promise((r) => res.once('close', r)),
  );
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    void Promise.all(each).then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}
