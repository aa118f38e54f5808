/**
 * The client's deadline for a blocking send. A client may state its own in the
 * `X-A2A-Gateway-Timeout` header (`3s`, `500ms`, or a number of seconds); the gateway uses the
 * smaller of that and the agent's `timeoutRescue.clientTimeout`, and answers `margin` before it.
 */
import { parseDuration } from '../config/duration.js';

export const TIMEOUT_HEADER = 'x-a2a-gateway-timeout';

export function clientTimeoutMs(header: string | string[] | undefined, configuredMs: number): number {
  const text = (Array.isArray(header) ? header[0] : header)?.trim();
  if (!text) return configuredMs;
  const stated = /^\d+(\.\d+)?$/.test(text) ? Number(text) * 1000 : parseDuration(text);
  return typeof stated === 'number' && stated > 0 ? Math.min(stated, configuredMs) : configuredMs;
}
