/**
 * Prometheus metrics from exchange records and task events (principle 7: a subscriber). The
 * registry is injected; every family is declared in metric-names.ts and every label value made
 * by labels.ts. Task gauges are computed when Prometheus scrapes, not on the forwarding path.
 */
import { Counter, Gauge, Histogram, collectDefaultMetrics, type Registry } from 'prom-client';
import { TASK_STATES, isTerminal } from '../../a2a/task-state.js';
import { RULE_IDS } from '../../a2a/findings.js';
import type { ExchangeObserver } from '../../exchange/exchange.js';
import type { AccessFacts, ExchangeRecord, Finding } from '../../exchange/record.js';
import type { TaskCensus, TaskListener, TaskTracker } from '../../tasks/tracker.js';
import { METRICS, RELOAD_RESULTS, type FamilyDef, type HistogramFamilyDef } from './metric-names.js';
import { createLabeler, type Labeler } from './labels.js';
import { REJECTION_REASONS, UPSTREAM_REASONS } from '../../errors/gateway-error.js';
import { ACCESS_DENIALS, PUSH_REFUSALS, STREAM_EVENT_KINDS } from '../../exchange/record.js';
import { CellCounter, CellHistogram } from './metric-cells.js';
import { STORE_OPERATIONS, type StoreStatusView } from '../../state/store-status.js';
import { replicaMetrics, type ReplicaEvents, type ReplicaView } from './replica-metrics.js';
import { GATEWAY_VERSION } from '../../version.js';

export interface MetricsOptions {
  /** The configured agents: the only values the `agent` label takes (besides `other`). */
  readonly agents: readonly string[];
  /** Node.js process metrics (CPU, memory, event loop, GC) on the same registry. Default true. */
  readonly processMetrics?: boolean;
  /** The shared state store's health; absent: the in-memory store (up, no errors). */
  readonly storeStatus?: StoreStatusView;
  /** The current config's replicas, read at scrape time for the a2a_replica_* gauges. */
  readonly replicas?: () => Iterable<ReplicaView>;
  /** The current config's agents and whether each card is available, read at scrape time (`a2a_agent_card_up`). */
  readonly cardsUp?: () => Iterable<{ readonly agent: string; readonly up: boolean }>;
  /** Stream resume's failed window writes so far (src/resume/window.ts `failures`). */
  readonly windowWriteFailures?: () => number;
  /** `version` of a2a_gateway_build_info; default the running gateway's (src/version.ts). */
  readonly version?: string;
  readonly now?: () => number;
}

export interface GatewayMetrics {
  readonly registry: Registry;
  /** Add to the gateway's exchange observers. */
  readonly observer: ExchangeObserver;
  /** Task events to histograms; `trackTasks` subscribes it for you. */
  readonly taskListener: TaskListener;
  /** Follows `tracker`: its events feed the task histograms, its store's census the task gauges. */
  trackTasks(tracker: TrackedTasks): void;
  /** A reload changed the configured agents: new ones get their own label and zero series. */
  setAgents(agents: readonly string[]): void;
  /** Counts a reload and sets a2a_config_last_reload_success (src/reload/). */
  reloaded(ok: boolean): void;
  /** Replica health changes and failed checks (src/fleet/health-monitor.ts tells them). */
  readonly replicaEvents: ReplicaEvents;
  /** One agent card signature check (src/cards/cache.ts tells it). */
  cardSignatureChecked(agent: string, result: string): void;
  /** One confirmation of a stale task (src/confirm/confirm.ts tells it). */
  taskConfirmed(agent: string, outcome: string): void;
}

export type TrackedTasks = Pick<TaskTracker, 'subscribe' | 'store' | 'emit'>;

const upstreamReasons: ReadonlySet<string> = new Set(UPSTREAM_REASONS);
const rejectionReasons: ReadonlySet<string> = new Set(REJECTION_REASONS);

export function createMetrics(registry: Registry, options: MetricsOptions): GatewayMetrics {
  const labels = createLabeler(options.agents);
  // Replaced by a reload (setAgents); read by the collectors below when Prometheus scrapes.
  let agents = options.agents;
  const now = options.now ?? Date.now;
  const registers = [registry];
  let tracked: TrackedTasks | undefined;
  const takeCensus = censusOf(
    () => tracked,
    () => agents,
    now,
  );
  // One census per scrape: the `tasks` collect takes it, `taskOldest` (registered next) reuses it.
  let census: Promise<TaskCensus | undefined> | undefined;

  const counter = (def: FamilyDef) => new Counter({ ...def, labelNames: [...def.labelNames], registers });
  const histogram = (def: HistogramFamilyDef) =>
    new Histogram({ ...def, labelNames: [...def.labelNames], buckets: [...def.buckets], registers });
  // Updated by every exchange: plain cells (metric-cells.ts says why).
  const requests = new CellCounter(METRICS.requests, registry);
  const requestDuration = new CellHistogram(METRICS.requestDuration, registry);
  const streamEvents = counter(METRICS.streamEvents);
  const streamFirstEvent = histogram(METRICS.streamFirstEvent);
  const taskDuration = histogram(METRICS.taskDuration);
  const taskInterrupted = histogram(METRICS.taskInterrupted);
  const findings = counter(METRICS.findings);
  const upstreamErrors = counter(METRICS.upstreamErrors);
  const rejections = counter(METRICS.rejections);
  const cardSignatureChecks = counter(METRICS.cardSignatureChecks);
  const taskConfirmations = counter(METRICS.taskConfirmations);
  const clientAborts = counter(METRICS.clientAborts);
  const rescues = counter(METRICS.rescues);
  const rescueAnswerDelay = histogram(METRICS.rescueAnswerDelay);
  const rescuePolls = histogram(METRICS.rescuePolls);
  const idempotentSends = counter(METRICS.idempotentSends);
  const translations = counter(METRICS.translations);
  const streamResumes = counter(METRICS.streamResumes);
  const access = accessCounters(counter, labels);
  const reloads = reloadMetrics(registers);

  const tasks: Gauge = new Gauge({
    ...METRICS.tasks,
    labelNames: [...METRICS.tasks.labelNames],
    registers,
    async collect() {
      census = takeCensus();
      const counted = await census;
      tasks.reset();
      if (!counted) return; // another replica exports the shared store's census
      for (const agent of agents) for (const state of TASK_STATES) tasks.set({ agent, state }, 0);
      for (const [agent, byState] of counted) {
        for (const [state, { count }] of byState)
          tasks.inc({ agent: labels.agent(agent), state: labels.taskState(state) }, count);
      }
    },
  });
  // Registered between the two: its collect reuses the census `tasks` took, and leaves it for `taskOldest`.
  const tasksUnobserved: Gauge = new Gauge({
    ...METRICS.tasksUnobserved,
    labelNames: [...METRICS.tasksUnobserved.labelNames],
    registers,
    async collect() {
      const counted = await (census ?? takeCensus());
      tasksUnobserved.reset();
      if (!counted) return;
      const unfinished = TASK_STATES.filter((s) => !isTerminal(s));
      for (const agent of agents) for (const state of unfinished) tasksUnobserved.set({ agent, state }, 0);
      for (const [agent, byState] of counted) {
        for (const [state, { unobserved }] of byState)
          if (unobserved)
            tasksUnobserved.inc({ agent: labels.agent(agent), state: labels.taskState(state) }, unobserved);
      }
    },
  });
  const taskOldest: Gauge = new Gauge({
    ...METRICS.taskOldest,
    labelNames: [...METRICS.taskOldest.labelNames],
    registers,
    async collect() {
      const counted = await (census ?? takeCensus());
      census = undefined;
      taskOldest.reset();
      if (!counted) return;
      const unfinished = TASK_STATES.filter((s) => !isTerminal(s));
      for (const agent of agents) for (const state of unfinished) taskOldest.set({ agent, state }, 0);
      // Unknown agents would share `other`: keep the oldest of them.
      const ages = new Map<string, { agent: string; state: string; age: number }>();
      for (const [agent, byState] of counted) {
        for (const [state, { oldestSince }] of byState) {
          if (oldestSince === undefined) continue;
          const age = Math.max(0, now() - oldestSince) / 1000;
          const key = { agent: labels.agent(agent), state: labels.taskState(state), age };
          const id = `${key.agent}\u0000${key.state}`;
          if ((ages.get(id)?.age ?? -1) < age) ages.set(id, key);
        }
      }
      for (const { agent, state, age } of ages.values()) taskOldest.set({ agent, state }, age);
    },
  });

  // Series that alerts compare over time start at zero, so the first error or finding is an
  // increase Prometheus can see (a series born at 1 shows no increase()). An agent a reload adds
  // starts its series then (setAgents); a removed agent's series stay (counters never go back).
  const startAgents = (names: readonly string[]) => {
    for (const agent of names) {
      for (const reason of UPSTREAM_REASONS) upstreamErrors.inc({ agent, reason }, 0);
      for (const rule of RULE_IDS) findings.inc({ agent, rule }, 0);
      for (const reason of REJECTION_REASONS) rejections.inc({ agent, reason }, 0);
      access.start(agent);
    }
  };
  startAgents(agents);
  if (options.processMetrics !== false) addProcessMetrics(registry);
  buildInfoMetric(registers, options.version ?? GATEWAY_VERSION);
  stateStoreMetrics(registers, options.storeStatus);
  agentCardMetric(registers, options.cardsUp);
  const replicaEvents = replicaMetrics(registers, labels, options.replicas ?? (() => []));
  windowWriteMetric(registers, options.windowWriteFailures);

  const onFinish = (record: ExchangeRecord): void => {
    const a2a = record.a2a;
    const agent = labels.agent(record.agent);
    const method = labels.method(a2a);
    const kind = labels.kind(a2a);
    // Label values in METRICS' label-name order.
    requests.inc([agent, method, labels.binding(a2a), labels.version(a2a), kind, labels.exchangeState(a2a)]);
    requestDuration.observe([agent, method, kind], record.durationMs / 1000);
    if (a2a?.stream) {
      for (const event of STREAM_EVENT_KINDS) {
        const n = a2a.stream.events[event] ?? 0;
        if (n > 0) streamEvents.inc({ agent, method, event }, n);
      }
      if (a2a.stream.firstEventMs !== undefined)
        streamFirstEvent.observe({ agent, method }, a2a.stream.firstEventMs / 1000);
    }
    for (const finding of record.findings)
      findings.inc({ agent, rule: labels.rule(finding.rule) }, occurrences(finding));
    if (record.error && (record.outcome === 'upstream-error' || upstreamReasons.has(record.error.reason))) {
      upstreamErrors.inc({ agent, reason: labels.reason(record.error.reason) });
    }
    if (record.error && rejectionReasons.has(record.error.reason))
      rejections.inc({ agent, reason: record.error.reason });
    if (record.outcome === 'client-gone') clientAborts.inc({ agent, method });
    if (record.access) access.count(record.access, agent);
    const rescue = record.rescue;
    if (rescue) {
      const strategy = labels.rescueStrategy(rescue.strategy);
      rescues.inc({ agent, outcome: labels.rescueOutcome(rescue.outcome) });
      if (rescue.settleToAnswerMs !== undefined)
        rescueAnswerDelay.observe({ agent, strategy }, rescue.settleToAnswerMs / 1000);
      rescuePolls.observe({ agent, strategy }, rescue.polls);
    }
    if (record.idempotency)
      idempotentSends.inc({ agent, outcome: labels.idempotentOutcome(record.idempotency.outcome) });
    if (record.resume) streamResumes.inc({ agent, outcome: labels.resumeOutcome(record.resume) });
    const t = record.translation;
    if (t) translations.inc({ agent, caller_version: t.caller, agent_version: t.agent, outcome: t.outcome });
  };

  const taskListener: TaskListener = (event) => {
    const agent = labels.agent(event.story.agent);
    if (event.type === 'settled')
      taskDuration.observe({ agent, state: labels.taskState(event.state) }, event.durationMs / 1000);
    else if (event.type === 'resumed')
      taskInterrupted.observe({ agent, state: labels.taskState(event.state) }, event.ms / 1000);
  };

  return {
    registry,
    observer: { name: 'metrics', onFinish: (exchange) => onFinish(exchange.record) },
    taskListener,
    trackTasks(tracker) {
      tracked = tracker;
      tracker.subscribe(taskListener);
    },
    setAgents(next) {
      const added = next.filter((name) => !agents.includes(name));
      agents = next;
      labels.setAgents(next);
      startAgents(added);
    },
    reloaded: reloads,
    replicaEvents,
    cardSignatureChecked: (agent, result) => cardSignatureChecks.inc({ agent: labels.agent(agent), result }),
    taskConfirmed: (agent, outcome) => taskConfirmations.inc({ agent: labels.agent(agent), outcome }),
  };
}

/**
 * The reload families: a counter by result (both started at zero) and a 1/0 gauge, 1 until a
 * reload fails. Its aggregator is `min`, so where the registries of several processes are
 * aggregated (`workers: N`) the gateway says 0 when any of them failed its last reload.
 */
function reloadMetrics(registers: Registry[]): (ok: boolean) => void {
  const total = new Counter({ ...METRICS.configReloads, labelNames: [...METRICS.configReloads.labelNames], registers });
  for (const result of RELOAD_RESULTS) total.inc({ result }, 0);
  const last = new Gauge({ ...METRICS.configLastReloadSuccess, labelNames: [], aggregator: 'min', registers });
  last.set(1);
  return (ok) => {
    total.inc({ result: ok ? 'success' : 'failure' });
    last.set(ok ? 1 : 0);
  };
}

/**
 * The access-control families, each started at zero for every configured agent and
 * label value so an alert sees the first denial as an increase. They count from `record.access`,
 * not from the gateway error: a `not-owner` denial is answered as an unknown task. The principal
 * is never a label (unbounded, and personal data); it is in traces and the access log.
 */
function accessCounters(
  counter: (def: FamilyDef) => Counter,
  labels: Labeler,
): { start(agent: string): void; count(access: AccessFacts, agent: string): void } {
  const denied = counter(METRICS.authDenied);
  const rateLimited = counter(METRICS.rateLimited);
  const pushRefused = counter(METRICS.pushRefused);
  return {
    start(agent) {
      for (const reason of ACCESS_DENIALS) denied.inc({ agent, reason }, 0);
      rateLimited.inc({ agent }, 0);
      for (const rule of PUSH_REFUSALS) pushRefused.inc({ agent, rule }, 0);
    },
    count(access, agent) {
      if (access.denied !== undefined) denied.inc({ agent, reason: labels.denial(access.denied) });
      if (access.rateLimited) rateLimited.inc({ agent });
      if (access.pushRefused !== undefined) pushRefused.inc({ agent, rule: labels.pushRefusal(access.pushRefused) });
    },
  };
}

/**
 * a2a_gateway_build_info: one series, always 1, so a dashboard or alert can join any family on
 * the version a process runs (`* on (instance) group_left (version) a2a_gateway_build_info`) and
 * a rollout shows as two versions side by side. Across cluster workers the primary's aggregator
 * takes the max: every worker runs the same code, and a sum would count the workers.
 */
function buildInfoMetric(registers: Registry[], version: string): void {
  const info = new Gauge({
    ...METRICS.buildInfo,
    labelNames: [...METRICS.buildInfo.labelNames],
    registers,
    aggregator: 'max',
  });
  info.set({ version, node_version: process.versions.node }, 1);
}

/** The state store's health, read at scrape time from what the store counts (store-status.ts). */
function stateStoreMetrics(registers: Registry[], status: StoreStatusView | undefined): void {
  new Gauge({
    ...METRICS.stateStoreUp,
    labelNames: [],
    registers,
    // Summed over cluster workers it would count workers; down on any worker is down.
    aggregator: 'min',
    collect() {
      this.set(status === undefined || status.up ? 1 : 0);
    },
  });
  new Counter({
    ...METRICS.stateStoreErrors,
    labelNames: [...METRICS.stateStoreErrors.labelNames],
    registers,
    collect() {
      // The store keeps the running totals; the counter shows them (reset, then the total).
      this.reset();
      for (const operation of STORE_OPERATIONS) this.inc({ operation }, status?.errors[operation] ?? 0);
    },
  });
}

/**
 * Each agent's card, read at scrape time from the current generation's registry (src/cards/
 * registry.ts `cardStates`): what used to be readiness (issue #30), now an alert
 * (dashboards/a2a-alerts.yml `A2AAgentCardUnavailable`). Reset per scrape so an agent a reload
 * removed leaves no series behind.
 */
function agentCardMetric(
  registers: Registry[],
  cardsUp: (() => Iterable<{ readonly agent: string; readonly up: boolean }>) | undefined,
): void {
  new Gauge({
    ...METRICS.agentCardUp,
    labelNames: [...METRICS.agentCardUp.labelNames],
    registers,
    // Summed over cluster workers it would count workers; unavailable on any worker is down.
    aggregator: 'min',
    collect() {
      this.reset();
      for (const { agent, up } of cardsUp?.() ?? []) this.set({ agent }, up ? 1 : 0);
    },
  });
}

/** Stream resume's failed window writes, read at scrape time from the windows' own count. */
function windowWriteMetric(registers: Registry[], failures: (() => number) | undefined): void {
  new Counter({
    ...METRICS.resumeWindowWriteFailures,
    labelNames: [],
    registers,
    collect() {
      this.reset();
      this.inc(failures?.() ?? 0);
    },
  });
}

/**
 * Takes the store's census for the task gauges. Evictions it made go to the tracker's
 * subscribers like any task event. A store that cannot answer leaves the gauges empty for that
 * scrape (the store's own error metric says why); so does a replica that is not the one
 * exporting a shared store's census.
 */
function censusOf(
  tracked: () => TrackedTasks | undefined,
  agents: () => readonly string[],
  now: () => number,
): () => Promise<TaskCensus | undefined> {
  return async () => {
    const tracker = tracked();
    if (!tracker) return new Map(); // no tracker to follow: every count is zero
    const result = await tracker.store.census(agents(), now()).catch(() => undefined);
    if (!result) return undefined;
    tracker.emit(result.events);
    return result.census;
  };
}

/**
 * prom-client's default Node.js metrics, minus three gauges named `*_total` (a counter suffix:
 * `promtool check metrics` rejects them). Each is the sum of the by-type gauge of the same name
 * without `_total`, which stays.
 */
function addProcessMetrics(registry: Registry): void {
  collectDefaultMetrics({ register: registry });
  for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'])
    registry.removeSingleMetric(name);
}

/** A finding may say how often its rule fired in the exchange; one otherwise. */
function occurrences(finding: Finding): number {
  const count = (finding as { count?: unknown }).count;
  return typeof count === 'number' && count > 0 ? count : 1;
}
