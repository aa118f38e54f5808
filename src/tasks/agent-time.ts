/**
 * When a task entered a state: the agent's own `status.timestamp` when it sent one that can be
 * believed, else when the gateway saw the state. The A2A TaskStatus carries that timestamp
 * (§4.1.2 TaskStatus.timestamp, ISO 8601; 0.3 the same field, wire-reference §5.1), so a task
 * nobody polled for an hour still gets the duration the agent measured, not the hour. Pure:
 * story.ts runs it, and redis-scripts.ts runs the same rule in Lua.
 */

/** How far the agent's clock may run ahead of the gateway's, or a stamp precede the first sighting. */
export const AGENT_CLOCK_SKEW_MS = 5_000;

/** ISO 8601 date-time with a time of day (RFC 3339 as the proto's Timestamp JSON writes it); anything else is ignored. */
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;

/** Epoch ms of an agent's `status.timestamp`, or undefined when it is absent or not a date-time. */
export function parseAgentTimestamp(raw: string | undefined): number | undefined {
  if (raw === undefined || !ISO_DATE_TIME.test(raw)) return undefined;
  const ms = Date.parse(raw);
  return Number.isFinite(ms) ? ms : undefined;
}

export interface StateTimeBounds {
  /** When the gateway saw the state: the fallback, and (plus skew) the latest believable stamp. */
  readonly observedAt: number;
  /** The story's first sighting: a stamp more than the skew before it is not believed. */
  readonly firstSeen: number;
  /** When the previous state began: a new state never starts before it (durations stay >= 0). */
  readonly previousAt?: number;
}

/** The time a state visit starts at: the agent's stamp when sane, else the observation time. */
export function stateStartedAt(agentAt: number | undefined, bounds: StateTimeBounds): number {
  const { observedAt, firstSeen, previousAt } = bounds;
  const sane =
    agentAt !== undefined && agentAt <= observedAt + AGENT_CLOCK_SKEW_MS && agentAt >= firstSeen - AGENT_CLOCK_SKEW_MS;
  const at = sane ? agentAt : observedAt;
  return previousAt !== undefined && at < previousAt ? previousAt : at;
}
