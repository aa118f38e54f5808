/**
 * The console's numbers (`GET /console/api/fleet` and `findings`): an exchange
 * observer that keeps, per configured agent and minute of the last hour, exchanges by kind,
 * latency per A2A method (latency-histogram.ts) and findings (findings-log.ts), plus the SSE
 * responses open now. O(1) per exchange; memory is agents × 60 slots (minute-ring.ts). Made once
 * in src/gateway/gateway.ts (it outlives reloads, `Shared`); `setAgents` follows the agent list. Exchanges
 * of names not configured are dropped, so no request can grow it.
 */
import type { Exchange, ExchangeObserver, ResponseHeaders } from '../exchange/exchange.js';
import { exchangeKind } from '../exchange/kind.js';
import { MINUTE_MS, MinuteRing, WINDOW_MINUTES } from './minute-ring.js';
import { latencyBucket, quantileMs, LATENCY_BUCKETS } from './latency-histogram.js';
import { FindingsLog } from './findings-log.js';

/** What an agent's connection failures look like on the record (src/errors/gateway-error.ts). */
const UNREACHABLE = 'UPSTREAM_UNREACHABLE';
/** Marks an exchange counted in `openStreams` (exchange.state key). */
const STREAM_KEY: object = Object.freeze({ key: 'console.stream' });

interface AgentStats {
  readonly ring: MinuteRing;
  openStreams: number;
  /** Last UPSTREAM_UNREACHABLE, epoch ms (0: never). */
  unreachableAt: number;
}

export interface AgentWindow {
  readonly perMinute: { message: number[]; task: number[]; error: number[] };
  readonly totals: { message: number; task: number; error: number; other: number };
  readonly latency: Array<{ method: string; count: number; p50Ms: number; p99Ms: number }>;
  readonly openStreams: number;
  readonly findingsLastHour: number;
  /** A connection to the agent failed in the last minute. */
  readonly unreachableLately: boolean;
}

export class ConsoleStats {
  readonly windowMinutes = WINDOW_MINUTES;
  private agents = new Map<string, AgentStats>();
  readonly findings = new FindingsLog();

  constructor(
    agents: readonly string[],
    private readonly now: () => number = Date.now,
  ) {
    this.setAgents(agents);
  }

  /** A reload changed the agents: kept ones keep their hour, new ones start empty, removed ones go. */
  setAgents(names: readonly string[]): void {
    const next = new Map<string, AgentStats>();
    for (const name of names)
      next.set(name, this.agents.get(name) ?? { ring: new MinuteRing(), openStreams: 0, unreachableAt: 0 });
    this.agents = next;
  }

  readonly observer: ExchangeObserver = {
    name: 'console-stats',
    onResponseStart: (exchange, _status, headers) => this.streamStarted(exchange, headers),
    onFinish: (exchange) => this.finished(exchange),
  };

  private streamStarted(exchange: Exchange, headers: ResponseHeaders): void {
    const type = headers['content-type'];
    if (typeof type !== 'string' || !type.startsWith('text/event-stream')) return;
    const agent = this.agents.get(exchange.record.agent);
    if (agent === undefined) return;
    agent.openStreams++;
    exchange.state.set(STREAM_KEY, agent);
  }

  private finished(exchange: Exchange): void {
    const streaming = exchange.state.get(STREAM_KEY) as AgentStats | undefined;
    if (streaming !== undefined) streaming.openStreams--;
    const record = exchange.record;
    const agent = this.agents.get(record.agent);
    if (agent === undefined) return;
    const now = this.now();
    const minute = Math.floor(now / MINUTE_MS);
    const slot = agent.ring.at(minute);
    slot.kinds[exchangeKind(record.a2a)]++;
    MinuteRing.latencyOf(slot, record.a2a?.operation ?? 'unknown')[latencyBucket(record.durationMs)]!++;
    if (record.error?.reason === UNREACHABLE) agent.unreachableAt = now;
    if (record.findings.length === 0) return;
    for (const finding of record.findings) {
      slot.findings += finding.count;
      const example = { exchangeId: record.id, agent: record.agent, at: now, detail: finding.detail };
      this.findings.add(finding.rule, finding.count, example, minute);
    }
  }

  /** Configured agents, in config order. */
  agentNames(): string[] {
    return [...this.agents.keys()];
  }

  /** One agent's window ending now; undefined for a name not configured. */
  window(name: string): AgentWindow | undefined {
    const agent = this.agents.get(name);
    if (agent === undefined) return undefined;
    const now = this.now();
    const current = Math.floor(now / MINUTE_MS);
    const perMinute = { message: [] as number[], task: [] as number[], error: [] as number[] };
    const totals = { message: 0, task: 0, error: 0, other: 0 };
    const latency = new Map<string, Uint32Array>();
    let findingsLastHour = 0;
    for (let minute = current - WINDOW_MINUTES + 1; minute <= current; minute++) {
      const slot = agent.ring.peek(minute);
      perMinute.message.push(slot?.kinds.message ?? 0);
      perMinute.task.push(slot?.kinds.task ?? 0);
      perMinute.error.push(slot?.kinds.error ?? 0);
      if (slot === undefined) continue;
      for (const kind of ['message', 'task', 'error', 'other'] as const) totals[kind] += slot.kinds[kind];
      findingsLastHour += slot.findings;
      for (const [method, counts] of slot.latency) addInto(latency, method, counts);
    }
    return {
      perMinute,
      totals,
      latency: latencyRows(latency),
      openStreams: agent.openStreams,
      findingsLastHour,
      unreachableLately: agent.unreachableAt > 0 && now - agent.unreachableAt < MINUTE_MS,
    };
  }

  /** The current epoch minute (for the findings view). */
  minute(): number {
    return Math.floor(this.now() / MINUTE_MS);
  }
}

function addInto(sums: Map<string, Uint32Array>, method: string, counts: Uint32Array): void {
  let sum = sums.get(method);
  if (sum === undefined) sums.set(method, (sum = new Uint32Array(LATENCY_BUCKETS)));
  for (let i = 0; i < LATENCY_BUCKETS; i++) sum[i]! += counts[i]!;
}

function latencyRows(sums: Map<string, Uint32Array>): AgentWindow['latency'] {
  const rows: AgentWindow['latency'] = [];
  for (const [method, counts] of sums) {
    const count = counts.reduce((a, b) => a + b, 0);
    if (count === 0) continue;
    rows.push({ method, count, p50Ms: quantileMs(counts, count, 0.5), p99Ms: quantileMs(counts, count, 0.99) });
  }
  return rows.sort((a, b) => b.count - a.count);
}
