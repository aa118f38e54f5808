/**
 * Builds a gateway from a validated config and serves it: the pieces are made here, once, and
 * handed to each other; nothing below reads the config file or the environment.
 */
import type { Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { GatewayConfig } from './config/schema.js';
import { closeUpstream, createUpstream, type Upstream } from './transport/upstream.js';
import { CardCache } from './cards/cache.js';
import { CardRegistry } from './cards/registry.js';
import { createAgentPipeline } from './proxy/pipeline.js';
import { ObserverSet, type Exchange, type ExchangeObserver } from './exchange/exchange.js';
import { observerFailureLog } from './exchange/observer-failures.js';
import { PeerTrust } from './proxy/public-url.js';
import { createControlApp } from './control/app.js';
import { createGatewayServer } from './server.js';
import { accessLog } from './telemetry/access-log.js';
import { createInspector } from './inspect/inspector.js';
import { InspectionBudget, type InspectionBudgetView } from './inspect/budget.js';
import { RecentExchanges } from './inspect/recent.js';
import { InMemoryTaskStore, TaskTracker } from './tasks/tracker.js';
import { createLogger, type Logger } from './log.js';
import { createTelemetry } from './telemetry/telemetry.js';
import { GATEWAY_VERSION } from './version.js';
import { buildAccessControl } from './access/build.js';

export interface RunningGateway {
  /** `http://host:port` of the listener. */
  readonly url: string;
  readonly server: Server;
  readonly registry: CardRegistry;
  readonly tracker: TaskTracker;
  /** The global inspection budget (read-only), or undefined when inspection is off. */
  readonly inspectionBudget: InspectionBudgetView | undefined;
  /** Where Prometheus scrapes, or undefined when metrics are off. */
  readonly metricsUrl: string | undefined;
  /** Stops accepting, lets exchanges in flight finish for `shutdown.grace`, then ends the rest. */
  close(): Promise<void>;
}

export interface GatewayOptions {
  readonly logger?: Logger;
  /** Extra exchange observers (tests, embedding). */
  readonly observers?: readonly ExchangeObserver[];
  /** OTEL_* variables for tracing (the CLI passes process.env); tracing is off without them. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

export async function startGateway(config: GatewayConfig, options: GatewayOptions = {}): Promise<RunningGateway> {
  const log = options.logger ?? createLogger(config.log.level);
  const upstreams = new Map<string, Upstream>(
    Object.entries(config.agents).map(([name, agent]) => [name, createUpstream(name, agent)]),
  );
  const cards = new CardCache({ maxAgeMs: config.cards.maxAge, maxBytes: config.cards.maxBytes, log });
  const registry = new CardRegistry(upstreams, cards, config.cards.retry, log);
  const trust = new PeerTrust(config.trustedProxies);
  const inFlight = new Set<Exchange>();
  const tracker = new TaskTracker(
    new InMemoryTaskStore({ maxTasks: config.tasks.maxTracked, ttlMs: config.tasks.ttl }),
  );
  const inspectionBudget = config.inspection.enabled ? new InspectionBudget(config.inspection.budgetBytes) : undefined;
  // Observers run in this order: inspection fills the record that the others read.
  const recent = new RecentExchanges(config.inspection.recent);
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
  // Observers run in this order: inspection fills the record; telemetry (traces, then metrics)
  // reads it; the access log comes last so it can carry the trace id.
  const observers = new ObserverSet(
    [
      ...(inspectionBudget
        ? [createInspector({ maxBytes: config.inspection.maxBytes, tracker, budget: inspectionBudget })]
        : []),
      ...telemetry.observers,
      ...(options.observers ?? []),
      recent.observer,
      ...(config.log.access ? [accessLog(log)] : []),
    ],
    observerFailureLog(log),
  );
  let draining = false;
  const isDraining = () => draining;

  const access = buildAccessControl(config, {
    ownerOf: (agent, taskId) => tracker.store.ownerOf(agent, taskId),
    pushCapable: async (agent) => {
      const upstream = upstreams.get(agent)!;
      const cached = await cards.get(upstream, upstream.config.cardPath, {}).catch(() => undefined);
      const capabilities = cached?.card?.['capabilities'] as { pushNotifications?: unknown } | undefined;
      // No card to go by: assume it may (a body that cannot be checked is then refused).
      return cached?.card === undefined || capabilities?.pushNotifications === true;
    },
  });
  const handleAgentRequest = createAgentPipeline({
    upstreams,
    cards,
    trust,
    publicUrl: config.publicUrl,
    observers,
    inFlight,
    inspectBytes: config.inspection.enabled ? config.inspection.maxBytes : 0,
    limits: config.limits,
    queryStrings: config.log.queryStrings,
    access: access.gate,
    stripHeaders: access.stripHeaders,
    cardSecurity: access.cardSecurity,
  });
  const metricsOnMain = false; // interim: metrics on the admin listener (issue #13 item 1)
  const control = createControlApp({
    upstreams,
    registry,
    trust,
    publicUrl: config.publicUrl,
    isDraining,
    recent,
    tracker,
    metrics: metricsOnMain ? { path: config.metrics.path, handler: telemetry.metricsHandler } : undefined,
  });
  const server = createGatewayServer({
    handleAgentRequest,
    agentNames: new Set(upstreams.keys()),
    control,
    isDraining,
    trust,
    limits: config.limits,
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.listen.port, config.listen.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${host}:${address.port}`;
  const metricsListener = config.metrics.enabled
    ? await telemetry.listenMetrics({ ...config.admin.listen, path: config.metrics.path })
    : undefined;
  registry.start();
  log.info(
    {
      url,
      agents: [...upstreams.keys()],
      tracing: telemetry.tracingEnabled,
      metrics: metricsListener
        ? `${metricsListener.url}${config.metrics.path}`
        : metricsOnMain
          ? `${url}${config.metrics.path}`
          : 'off',
    },
    'gateway listening',
  );
  log.flush(); // the access log is buffered for throughput; start-up must show at once

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      draining = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const deadline = Date.now() + config.shutdown.grace;
      while (inFlight.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      const ending = [...inFlight];
      for (const exchange of ending) exchange.terminate();
      // The answers just written (503s, last events) leave before the connections close.
      await settledWithin(
        ending.map((e) => e.res),
        1000,
      );
      server.closeAllConnections();
      await closed;
      await metricsListener?.close();
      await telemetry.shutdown();
      registry.stop();
      await Promise.all([...upstreams.values()].map(closeUpstream));
      log.info('gateway stopped');
      // The log is written in batches: wait until the last one is out (bounded, never hangs).
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 2000);
        log.flush(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    })());

  const metricsUrl = metricsListener?.url
    ? `${metricsListener.url}${config.metrics.path}`
    : metricsOnMain
      ? `${url}${config.metrics.path}`
      : undefined;
  return { url, server, registry, tracker, inspectionBudget, metricsUrl, close };
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
