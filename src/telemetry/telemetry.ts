/**
 * Metrics and traces, put together for the gateway's start-up code, so that nothing outside this
 * folder imports prom-client or OpenTelemetry (principle 7). Settings come in as arguments:
 * `env` is the process environment the CLI read, for the standard OTEL_* variables.
 */
import { Registry } from 'prom-client';
import type { ExchangeObserver } from '../exchange/exchange.js';
import { createMetrics, type TrackedTasks } from './metrics/metrics.js';
import type { StoreStatusView } from '../state/store-status.js';
import { metricsHandler } from './metrics/metrics-endpoint.js';
import { registryJson, type RegistryJson } from './metrics/cluster-metrics.js';
import { createTracing } from './tracing/tracing.js';
import { tracingOptionsFromEnv, type Env } from './tracing/tracing-config.js';
import type { TracingLog } from './tracing/export-thread.js';
import type { ReplicaEvents, ReplicaView } from './metrics/replica-metrics.js';

export interface TelemetryOptions {
  readonly agents: readonly string[];
  readonly tracker: TrackedTasks;
  /** The shared state store's health (`a2a_state_store_*`); absent for the in-memory store. */
  readonly storeStatus?: StoreStatusView;
  /** The current config's replicas, read at scrape time (`a2a_replica_*`). */
  readonly replicas?: () => Iterable<ReplicaView>;
  /** The current config's agents' cards, read at scrape time (`a2a_agent_card_up`). */
  readonly cardsUp?: () => Iterable<{ readonly agent: string; readonly up: boolean }>;
  /** Stream resume's failed window writes so far (`a2a_resume_window_write_failures_total`). */
  readonly windowWriteFailures?: () => number;
  /** OTEL_* variables; tracing is off unless they configure an exporter. */
  readonly env: Env;
  readonly serviceVersion?: string;
  /** Metrics at all (default true); off, the observers are tracing only and /metrics is empty. */
  readonly metrics?: boolean;
  /** Node.js process metrics on /metrics (default true). */
  readonly processMetrics?: boolean;
  /** Where span export troubles go: failed exports, dropped spans, a failed export thread. */
  readonly tracingLog?: TracingLog;
}

export interface Telemetry {
  /** Tracing first, then metrics; put them after inspection and before the access log. */
  readonly observers: readonly ExchangeObserver[];
  readonly tracingEnabled: boolean;
  /** OTEL_* settings that were ignored, for the start-up log. */
  readonly warnings: readonly string[];
  /** For the admin app: `app.get('/metrics', telemetry.metricsHandler)`. */
  readonly metricsHandler: () => Promise<Response>;
  /** A reload changed the configured agents (the `agent` label's values). No-op with metrics off. */
  setAgents(agents: readonly string[]): void;
  /** Counts a reload, applied (`ok`) or refused. No-op with metrics off. */
  reloaded(ok: boolean): void;
  /** Replica health changes and failed checks, counted; undefined with metrics off. */
  readonly replicaEvents: ReplicaEvents | undefined;
  /** Counts one agent card signature check. No-op with metrics off. */
  cardSignatureChecked(agent: string, result: string): void;
  /** Counts one confirmation of a stale task (`a2a_task_confirmations_total`). No-op with metrics off. */
  taskConfirmed(agent: string, outcome: string): void;
  /** The registry as JSON, which a cluster worker sends the primary to sum (src/cluster/metrics.ts). */
  readonly metricsJson: () => Promise<RegistryJson>;
  /** Exports the spans still queued; call once the listener has drained. */
  shutdown(): Promise<void>;
}

export function createTelemetry(options: TelemetryOptions): Telemetry {
  const registry = new Registry();
  const metrics =
    options.metrics === false
      ? undefined
      : createMetrics(registry, {
          agents: options.agents,
          processMetrics: options.processMetrics,
          storeStatus: options.storeStatus,
          replicas: options.replicas,
          cardsUp: options.cardsUp,
          windowWriteFailures: options.windowWriteFailures,
          version: options.serviceVersion,
        });
  metrics?.trackTasks(options.tracker);
  const { options: tracingOptions, warnings } = tracingOptionsFromEnv(options.env);
  const tracing = createTracing(tracingOptions, { serviceVersion: options.serviceVersion, log: options.tracingLog });
  return {
    observers: [...(tracing.enabled ? [tracing.observer] : []), ...(metrics ? [metrics.observer] : [])],
    tracingEnabled: tracing.enabled,
    warnings,
    metricsHandler: metricsHandler(registry),
    setAgents: (agents) => metrics?.setAgents(agents),
    reloaded: (ok) => metrics?.reloaded(ok),
    replicaEvents: metrics?.replicaEvents,
    cardSignatureChecked: (agent, result) => metrics?.cardSignatureChecked(agent, result),
    taskConfirmed: (agent, outcome) => metrics?.taskConfirmed(agent, outcome),
    metricsJson: registryJson(registry),
    shutdown: () => tracing.shutdown(),
  };
}
