/**
 * Active health checks of one replica (docs/fleet.md "Health"): a GET of `health.path` (default
 * the agent's card) on the replica's unary pool every `interval`, bounded by `timeout`; a 2xx is
 * a pass, anything else (another status, no connection, the timeout) a failure. Each result goes
 * to `report` (health-monitor.ts: the replica's ReplicaHealth, whose thresholds decide the state,
 * and the failure counter).
 *
 * The first check waits a random part of the interval, so replicas (and gateway processes) do
 * not all ask at the same moment. The next check is scheduled when one ends, never overlapping,
 * and the timers are unref'd: a checker never keeps the process alive.
 */
import type { Replica } from '../transport/replica.js';
import { discardBody } from '../transport/read-capped.js';
import { GATEWAY_USER_AGENT } from '../version.js';

/** A check reads at most this much of the answer: only the status matters. */
const BODY_CAP = 64 * 1024;

export interface CheckSettings {
  /** The full path to GET on the replica (the agent's base path + `health.path`). */
  readonly path: string;
  readonly interval: number;
  readonly timeout: number;
  /** The agent's configured extra headers (an agent behind its own auth may need them). */
  readonly headers: Readonly<Record<string, string>>;
}

/** One GET of the replica's health path: whether it passed, and what it met (for the log and /admin/replicas). */
export async function probe(replica: Replica, settings: CheckSettings): Promise<{ ok: boolean; detail: string }> {
  const headers = { accept: 'application/json', 'user-agent': GATEWAY_USER_AGENT, ...settings.headers };
  try {
    const response = await replica.pool.request({
      path: settings.path,
      method: 'GET',
      headers,
      signal: AbortSignal.timeout(settings.timeout),
    });
    await drain(response.body);
    const ok = response.statusCode >= 200 && response.statusCode < 300;
    return { ok, detail: `HTTP ${response.statusCode}` };
  } catch (err) {
    const e = err as Error & { code?: string };
    const why = e.name === 'TimeoutError' ? `no answer within ${settings.timeout} ms` : (e.code ?? e.message);
    return { ok: false, detail: why };
  }
}

/** Reads and drops the body, so the connection goes back to the pool; past the cap it is cut. */
async function drain(body: AsyncIterable<Buffer> & Parameters<typeof discardBody>[0]): Promise<void> {
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > BODY_CAP) return void discardBody(body);
  }
}

export class HealthChecker {
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly replica: Replica,
    private readonly settings: CheckSettings,
    private readonly report: (ok: boolean, detail: string) => void,
    private readonly random: () => number = Math.random,
  ) {}

  start(): void {
    this.schedule(Math.floor(this.random() * this.settings.interval));
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.check(), ms);
    this.timer.unref();
  }

  private async check(): Promise<void> {
    const { ok, detail } = await probe(this.replica, this.settings);
    if (this.stopped) return; // retired while the check was out: its result is for nobody
    this.report(ok, detail);
    this.schedule(this.settings.interval);
  }
}
