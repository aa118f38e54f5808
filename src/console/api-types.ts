/**
 * The console's data contract (docs/operations.md "Console"): the JSON the admin listener serves under
 * `/console/api/` and the page (src/console/ui/) reads. One file, so the server and the page
 * agree by construction; the page imports these types only (no runtime code).
 *
 * Times are epoch milliseconds; states are the 1.0 names (`TASK_STATE_WORKING`), whatever the
 * wire spelling (src/a2a/task-state.ts).
 */

/** `GET /console/api/config`: what the page needs to know about this gateway. */
export interface ConsoleSettings {
  readonly version: string;
  /** `console.traceUrl`, `{traceId}` to be replaced; absent: trace ids are shown unlinked. */
  readonly traceUrl?: string;
  /** Worker processes behind this admin listener (`workers`); the console shows the one serving it. */
  readonly workers: number;
}

/** `GET /console/api/fleet`: one row per configured agent. */
export interface FleetView {
  /** Server time of the snapshot. */
  readonly at: number;
  /** How many minutes `perMinute` covers (the last one is the current, partial minute). */
  readonly windowMinutes: number;
  readonly agents: readonly FleetAgent[];
}

export interface FleetAgent {
  readonly name: string;
  /** The agent's card has been fetched and no connection to it failed in the last minute. */
  readonly reachable: boolean;
  /** Why its card cannot be had, when it cannot. */
  readonly cardError?: string;
  /** The check of its card's signatures (`valid`, `invalid`, `unsigned`), when it has keys configured. */
  readonly cardSignature?: string;
  /** From its card: protocol versions (`1.0`, `0.3`) and bindings (`JSONRPC`, `HTTP+JSON`, `GRPC`). */
  readonly protocolVersions: readonly string[];
  readonly bindings: readonly string[];
  /** Finished exchanges per minute, oldest first, `windowMinutes` long: the headline. */
  readonly perMinute: {
    readonly message: readonly number[];
    readonly task: readonly number[];
    readonly error: readonly number[];
  };
  /** Over the whole window; `other` is neither a message, a task nor an error (cards, refusals). */
  readonly totals: { readonly message: number; readonly task: number; readonly error: number; readonly other: number };
  /** Tracked tasks by current state (the task store's census). */
  readonly tasksByState: Readonly<Record<string, number>>;
  /** Per A2A method over the window. */
  readonly latency: readonly {
    readonly method: string;
    readonly count: number;
    readonly p50Ms: number;
    readonly p99Ms: number;
  }[];
  /** SSE responses in flight now. */
  readonly openStreams: number;
  /** Findings in the last 60 minutes. */
  readonly findingsLastHour: number;
  /** Agents configured with `upstreams`: each replica's health as this gateway process sees it. */
  readonly replicas?: readonly FleetReplica[];
}

export interface FleetReplica {
  readonly url: string;
  /** healthy, unhealthy or ejected (docs/fleet.md "Health"). */
  readonly state: string;
  readonly drained: boolean;
  /** Calls sent to it and not yet finished. */
  readonly outstanding: number;
}

export type ExchangeKind = 'message' | 'task' | 'error' | 'other';

/**
 * One finished exchange as the feed and the lists show it. `GET /console/api/feed` is a
 * server-sent event stream of these (`event: exchange`, `data:` one JSON object), newest last;
 * a console that reads too slowly is sent `event: dropped` (when it can still be written) and
 * disconnected; the page reconnects. Past `console.feed.maxRate` exchanges a second the rest are
 * not sent but counted: `event: skipped`, `data: {"count": N}`.
 */
export interface ExchangeSummary {
  /** Unique within this gateway process; `GET /console/api/exchanges/{id}` while it is recent. */
  readonly id: string;
  readonly agent: string;
  readonly startedAt: number;
  readonly durationMs: number;
  /** The A2A operation (`SendMessage`, `GetTask`, …), `AgentCard`, or `unknown`. */
  readonly method: string;
  readonly binding?: string;
  readonly version?: string;
  readonly kind: ExchangeKind;
  readonly taskId?: string;
  readonly contextId?: string;
  /** The tenant the call named (A2A §5.7), if any. */
  readonly tenant?: string;
  readonly state?: string;
  readonly status?: number;
  readonly bytesIn: number;
  readonly bytesOut: number;
  /** Events relayed, for a stream. */
  readonly streamEvents?: number;
  /** What the timeout rescue did (its outcome is the "upgrade outcome" of the row). */
  readonly rescue?: { readonly strategy: string; readonly outcome?: string };
  /** The replica the call went to, for agents configured with `upstreams` (docs/fleet.md). */
  readonly replica?: string;
  /** What idempotent sends did with the call: first, replayed, waited, refused, unavailable. */
  readonly idempotency?: string;
  /** What stream resume did with a `Last-Event-ID` call: replayed, continued, beyond_window, unavailable. */
  readonly resume?: string;
  /** A call translated between A2A versions (docs/translation.md): "1.0 → 0.3: translated". */
  readonly translation?: string;
  /** Rule ids of the findings. */
  readonly findings: readonly string[];
  /** complete, client-gone, upstream-error, gateway-error. */
  readonly outcome: string;
  readonly traceId?: string;
}

/** `GET /console/api/exchanges/{id}`: the summary and everything the record holds (no bodies). */
export interface ExchangeDetail {
  readonly summary: ExchangeSummary;
  /** The exchange record as `GET /exchanges` shows it: request and response facts, findings with details. */
  readonly record: Readonly<Record<string, unknown>>;
}

/** `GET /console/api/findings`: by rule, over the last 60 minutes. */
export interface FindingsView {
  readonly windowMinutes: number;
  readonly rules: readonly FindingRule[];
}

export interface FindingRule {
  readonly rule: string;
  /** src/a2a/findings.ts RULES: the spec section it rests on, its severity and one line of text. */
  readonly section: string;
  readonly severity: string;
  readonly description: string;
  readonly count: number;
  /** Newest first, at most 10. */
  readonly latest: readonly {
    readonly exchangeId: string;
    readonly agent: string;
    readonly at: number;
    readonly detail?: string;
  }[];
}

/**
 * `GET /console/api/tasks/{agent}/{taskId}`: one task's timeline (the guide's figure). 404 when
 * the task is not tracked.
 */
export interface TaskTimeline {
  readonly agent: string;
  readonly taskId: string;
  readonly contextId?: string;
  readonly firstSeen: number;
  readonly lastSeen: number;
  /** First seen → first terminal state, once there is one. */
  readonly durationMs?: number;
  /** Milliseconds spent in each interrupted state. */
  readonly interruptedMs: Readonly<Record<string, number>>;
  /**
   * Every state the gateway saw, in order. `shown`: a reply or an event showed it to the client
   * (a filled square); false: only the gateway saw it, e.g. through the timeout rescue's
   * subscription or polls (a hollow square).
   */
  readonly states: readonly { readonly state: string; readonly at: number; readonly shown: boolean }[];
  /** Every call that touched the task and is still among the recent exchanges, oldest first (one bar each). */
  readonly calls: readonly TimelineCall[];
}

export interface TimelineCall {
  readonly exchangeId: string;
  readonly method: string;
  readonly startedAt: number;
  readonly endedAt: number;
  /** A blocking SendMessage (no returnImmediately). */
  readonly blocking?: boolean;
  readonly stream: boolean;
  /** The rescue's outcome when the timeout rescue answered the call. */
  readonly rescue?: string;
  /** States this call showed its client, with when (a stream's events; a reply's one state at its end). */
  readonly states: readonly { readonly state: string; readonly at: number }[];
  /** When artifact updates went by on this call (ticks). */
  readonly artifactsAt: readonly number[];
}
