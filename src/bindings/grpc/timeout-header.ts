/**
 * `grpc-timeout` (gRPC over HTTP/2, "Requests": `TimeoutValue TimeoutUnit`, at most 8 digits; H
 * hours, M minutes, S seconds, m milli-, u micro-, n nanoseconds). The client's deadline: the
 * gateway passes it on (less the time already spent) and answers DEADLINE_EXCEEDED itself when
 * it passes, and the timeout rescue answers inside it.
 */
const UNIT_MS: Readonly<Record<string, number>> = { H: 3_600_000, M: 60_000, S: 1000, m: 1, u: 1e-3, n: 1e-6 };

/** Milliseconds, or undefined for an absent or malformed value (no deadline). */
export function parseGrpcTimeout(value: string | string[] | undefined): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  const match = text === undefined ? null : /^(\d{1,8})([HMSmun])$/.exec(text);
  if (!match) return undefined;
  return Number(match[1]) * UNIT_MS[match[2]!]!;
}

/** The header for `ms` milliseconds left (rounded up, so a deadline is never moved earlier by rounding). */
export function formatGrpcTimeout(ms: number): string {
  const whole = Math.max(0, Math.ceil(ms));
  return whole < 100_000_000 ? `${whole}m` : `${Math.min(99_999_999, Math.ceil(whole / 1000))}S`;
}
