/**
 * The primary's workers (node:cluster): forking them, which are up (they said `listening`), and
 * asking all of those one question at once (src/cluster/ipc.ts). A worker that does not answer
 * in time, or dies first, is left out of the answers rather than failing the whole question:
 * /metrics and /exchanges then show the workers that are up.
 */
import cluster, { type Worker } from 'node:cluster';
import { Asker, type Send } from './ipc.js';

/** How long the primary waits for each worker's answer. */
const ASK_WORKER_MS = 2000;

export interface WorkerReply {
  readonly worker: Worker;
  readonly body: unknown;
}

export class Fleet {
  readonly asker = new Asker();
  private readonly members = new Map<Worker, { ready: boolean }>();

  /** `env`: variables every worker gets besides the primary's own (the shared page-token key). */
  constructor(private readonly env: Readonly<Record<string, string>> = {}) {}

  fork(): Worker {
    const worker = cluster.fork(this.env);
    this.members.set(worker, { ready: false });
    return worker;
  }

  /** The worker is listening; returns how many are. */
  markReady(worker: Worker): number {
    const member = this.members.get(worker);
    if (member) member.ready = true;
    return this.readyCount;
  }

  /** The worker exited: its questions fail now instead of at their timeout. */
  remove(worker: Worker): void {
    this.members.delete(worker);
    this.asker.forget(worker);
  }

  get size(): number {
    return this.members.size;
  }

  get readyCount(): number {
    return [...this.members.values()].filter((m) => m.ready).length;
  }

  /** Signals every worker's process directly (worker.kill would disconnect it first, skipping the drain). */
  signalAll(signal: NodeJS.Signals): void {
    for (const worker of this.members.keys()) {
      try {
        worker.process.kill(signal);
      } catch {
        // Already gone: its exit event is on its way.
      }
    }
  }

  /** Asks every worker that is up; the answers of those that gave one. */
  async askAll(topic: string, body?: unknown): Promise<WorkerReply[]> {
    const ready = [...this.members].filter(([, m]) => m.ready).map(([w]) => w);
    const settled = await Promise.allSettled(
      ready.map(async (worker) => ({
        worker,
        body: await this.asker.ask(sendTo(worker), topic, body, ASK_WORKER_MS, worker),
      })),
    );
    return settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  }
}

export function sendTo(worker: Worker): Send {
  return (message) => worker.send(message, undefined, undefined, () => {});
}
