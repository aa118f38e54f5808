/**
 * A config generation: everything one validated config determines for traffic
 * (docs/ARCHITECTURE.md "Config generations and reload"). The agents' connection pools, the card cache and registry,
 * access control (gate, rate limits, card security), the pipeline on both bindings, the host routes, the traffic control app
 * and the admin app. The listeners (src/gateway/server.ts, src/gateway/admin-server.ts) read the current
 * generation once per request, so a reload is one reference swap; an exchange keeps the
 * generation it started on, whose pools live until its last exchange has finished
 * (src/reload/generations.ts). What outlives every generation — the logger, exchange observers,
 * telemetry, the task tracker, the recent-exchanges ring — comes in as `Shared`.
 */
import type { RequestListener } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import type { GatewayConfig } from '../config/schema.js';
import type { Pins } from '../fleet/pins.js';
import { healthMonitor, type HealthEvents, type HealthMonitor } from '../fleet/health-monitor.js';
import { closeUpstream, createUpstream, type Upstream } from '../transport/upstream.js';
import { CardCache } from '../cards/cache.js';
import { CardRegistry } from '../cards/registry.js';
import { createPipeline, type PipelineDeps } from '../pipeline/pipeline.js';
import type { IdempotentSends } from '../idempotency/step.js';
import type { ReplayWindows } from '../resume/window.js';
import { httpBinding } from '../bindings/http/binding.js';
import { HttpCall } from '../bindings/http/http-call.js';
import { hostRoutes } from '../pipeline/route.js';
import type { ObserverSet } from '../exchange/exchange.js';
import { InFlight } from '../exchange/in-flight.js';
import { PeerTrust } from '../transport/peer.js';
import { createControlApp } from '../control/app.js';
import { createAdminApp, type AdminSources } from '../control/admin-app.js';
import { mountConsolePage } from '../console/page.js';
import { trafficHandlers, type TrafficHandlers } from './server.js';
import { cardSecurityOf, type AccessControl } from '../access/build.js';
import { cardSignerOf } from '../cards/signer.js';
import type { RecentExchanges } from '../inspect/recent.js';
import type { TaskTracker } from '../tasks/tracker.js';
import type { Telemetry } from '../telemetry/telemetry.js';
import type { Logger } from '../log.js';
import type { LastReload, ReloadReport } from '../reload/report.js';
import type { ConsoleParts } from '../console/console-parts.js';
import type { ConsoleApiDeps } from '../console/api.js';
import { availableParallelism } from 'node:os';
import { GATEWAY_VERSION } from '../version.js';
import { grpcBinding } from '../bindings/grpc/binding.js';
import { GrpcClientCall } from '../bindings/grpc/call.js';
import { GrpcAgents } from '../bindings/grpc/agents.js';
import type { GrpcHandlers } from '../bindings/grpc/listener.js';
import type { GrpcPorts } from '../cards/grpc-address.js';
import { agentForHost } from '../pipeline/route.js';

/** What outlives reloads (made once in src/gateway/gateway.ts). */
export interface Shared {
  readonly log: Logger;
  readonly observers: ObserverSet;
  readonly tracker: TaskTracker;
  /** Task affinity's pins (src/fleet/pins.ts), in the state store: they outlive reloads. */
  readonly pins: Pins;
  readonly recent: RecentExchanges;
  readonly telemetry: Telemetry;
  readonly isDraining: () => boolean;
  /** False while a `required` shared store is down (`/readyz`, state.redis.required). */
  readonly stateReady: () => boolean;
  readonly lastReload: () => LastReload | undefined;
  /** In a cluster worker: /metrics and /exchanges of every worker (src/cluster/worker.ts). */
  readonly adminSources: AdminSources | undefined;
  /** `POST /admin/reload` (GatewayOptions.reload). */
  readonly reload: (() => Promise<ReloadReport>) | undefined;
  /** Where the gateway serves gRPC, as bound (agent cards advertise it). */
  readonly grpcPorts: GrpcPorts;
  /** The console's stats and live feed (src/console/console-parts.ts). */
  readonly console: ConsoleParts;
  /** Where replica health changes and failed checks are counted (telemetry); absent with metrics off. */
  readonly healthEvents: HealthEvents | undefined;
  /** Idempotent sends, over the store made with the task store (src/state/build.ts). */
  readonly idempotency: IdempotentSends;
  /** Stream resume's replay windows (src/state/build.ts). */
  readonly windows: ReplayWindows;
  /** Access control over this generation's agents, reading task owners from the state store. */
  readonly accessControl: (
    config: GatewayConfig,
    upstreams: ReadonlyMap<string, Upstream>,
    cards: CardCache,
  ) => AccessControl;
}

export interface Generation extends TrafficHandlers {
  readonly config: GatewayConfig;
  readonly upstreams: ReadonlyMap<string, Upstream>;
  readonly registry: CardRegistry;
  /** This generation's exchanges in flight: it is released once they have finished. */
  readonly inFlight: InFlight;
  /** The admin listener's app, as a node:http listener. */
  readonly admin: RequestListener;
  /** What the gRPC listeners answer with (src/bindings/grpc/). */
  readonly grpc: GrpcHandlers;
  /** The HTTP/2 channels to the agents' gRPC interfaces, closed with the generation. */
  readonly grpcAgents: GrpcAgents;
  /** The replicas' health checks: started when the generation goes live, stopped when it is retired. */
  readonly health: HealthMonitor;
}

/**
 * Makes a generation; `publicBase` says where the admin catalog says the agents are served (asked
 * per catalog request: at start-up the traffic listener's address is known only once it listens).
 * Nothing is started: `registry.start()` when it goes live.
 */
export function buildGeneration(config: GatewayConfig, shared: Shared, publicBase: () => string): Generation {
  const log = shared.log;
  const upstreams = new Map<string, Upstream>(
    Object.entries(config.agents).map(([name, agent]) => [name, createUpstream(name, agent)]),
  );
  const cards = new CardCache({
    maxAgeMs: config.cards.maxAge,
    maxBytes: config.cards.maxBytes,
    log,
    onSignature: (agent, check) => shared.telemetry.cardSignatureChecked(agent, check.result),
  });
  const signer = config.cards.signing && cardSignerOf(config.cards.signing);
  const registry = new CardRegistry(upstreams, cards, config.cards.retry, log, cardSecurityOf(config), signer);
  const trust = new PeerTrust(config.trustedProxies);
  const access = shared.accessControl(config, upstreams, cards);
  const inFlight = new InFlight();
  const pipeline: PipelineDeps = {
    upstreams,
    trust,
    observers: shared.observers,
    inFlight,
    inspectBytes: config.inspection.enabled ? config.inspection.maxBytes : 0,
    access: access.gate,
    pins: shared.pins,
    idempotency: shared.idempotency,
    restBasePaths: (agent) => registry.restBasePaths(agent),
  };
  const http = createPipeline(
    httpBinding({
      cards,
      publicUrl: config.publicUrl,
      limits: config.limits,
      queryStrings: config.log.queryStrings,
      cardSecurity: access.cardSecurity,
      cardSigner: signer,
      tracker: shared.tracker,
      grpcPorts: shared.grpcPorts,
      windows: shared.windows,
    }),
    pipeline,
  );
  const handleAgentRequest: TrafficHandlers['handleAgentRequest'] = (req, res, agent, rest, byHost) =>
    http(new HttpCall(req, res), agent, rest, byHost);
  const common = {
    upstreams,
    registry,
    isDraining: shared.isDraining,
    stateReady: shared.stateReady,
  };
  const control = createControlApp({
    ...common,
    trust,
    publicUrl: config.publicUrl,
    mayList: (req, agent) => access.gate.mayList(req, agent),
    listVaries: access.gate.listVaries,
    catalogHost: config.catalog.host,
    jwks: signer?.jwks,
  });
  const admin = createAdminApp({
    ...common,
    lastReload: shared.lastReload,
    get publicBase() {
      return publicBase();
    },
    recent: shared.recent,
    exchanges: shared.adminSources?.exchanges,
    replicas: shared.adminSources?.replicas,
    tracker: shared.tracker,
    metrics: config.metrics.enabled
      ? { path: config.metrics.path, handler: shared.adminSources?.metrics ?? shared.telemetry.metricsHandler }
      : undefined,
    token: config.admin.token,
    hosts: config.admin.hosts,
    reload: shared.reload,
    console: config.console.enabled ? consoleDeps(config, shared, registry, upstreams, publicBase) : undefined,
  });
  // The console page; its data routes are mounted beside it (src/console/api.ts).
  if (config.console.enabled) mountConsolePage(admin, { token: config.admin.token });
  const traffic = trafficHandlers({
    handleAgentRequest,
    agentNames: new Set(upstreams.keys()),
    hostRoutes: hostRoutes(config.agents),
    control,
    trust,
    limits: config.limits,
  });
  const grpcAgents = new GrpcAgents(cards);
  const grpcCalls = createPipeline(
    grpcBinding({
      agents: grpcAgents,
      limits: config.limits,
      tracker: shared.tracker,
      cards: { publicBase, grpcPorts: shared.grpcPorts, maxBytes: config.cards.maxBytes },
      windows: shared.windows,
    }),
    pipeline,
  );
  const grpc: GrpcHandlers = {
    handleGrpcCall: (req, res, agent) => grpcCalls(new GrpcClientCall(req, res), agent, req.url),
    agentForAuthority: (authority) => agentForHost(traffic.hostRoutes, authority),
  };
  const adminListener = getRequestListener(admin.fetch);
  const health = healthMonitor(upstreams, log, shared.healthEvents);
  return { ...traffic, config, upstreams, registry, inFlight, admin: adminListener, grpc, grpcAgents, health };
}

/** The console API's sources (src/console/api.ts): this generation's agents and cards, the shared numbers. */
function consoleDeps(
  config: GatewayConfig,
  shared: Shared,
  registry: CardRegistry,
  upstreams: ReadonlyMap<string, Upstream>,
  publicBase: () => string,
): ConsoleApiDeps {
  const traceUrl = config.console.traceUrl;
  return {
    settings: {
      version: GATEWAY_VERSION,
      workers: config.workers === 'auto' ? availableParallelism() : config.workers,
      ...(traceUrl ? { traceUrl } : {}),
    },
    stats: shared.console.stats,
    feed: shared.console.feed,
    recent: shared.recent,
    tracker: shared.tracker,
    registry,
    upstreams,
    get publicBase() {
      return publicBase();
    },
  };
}

/** What a generation holds beyond its exchanges: card retry timers, then the agents' pools. */
export async function releaseGeneration(generation: Generation): Promise<void> {
  generation.registry.stop();
  generation.health.stop();
  await Promise.all([...generation.upstreams.values()].map(closeUpstream));
  await generation.grpcAgents.close();
}
