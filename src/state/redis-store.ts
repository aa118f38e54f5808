/**
 * The task store shared by every replica and worker (`state.store: redis`, docs/deploying.md "Scaling
 * out"). Writes go through a bounded queue (write-queue.ts) and are recorded by the Lua scripts
 * of redis-scripts.ts, each atomically, so a transition is recorded — and its event emitted — once
 * across the cluster. Reads answer an ownership check: owners never change once recorded, so
 * each replica keeps the ones it has learned (bounded, with the TTL) and asks Redis only for the
 * others, bounded by `state.redis.timeout`; a Redis that cannot answer is StoreUnavailable, and
 * the gate decides (`failClosed`).
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Redis } from 'ioredis';
import type { RedisStateConfig } from '../config/state-schema.js';
import type { TaskEvent, TaskSighting, TaskStory } from '../tasks/story.js';
import { StoreUnavailable, type CensusPurpose, type Owners, type StaleTask, type TaskStore } from '../tasks/tracker.js';
import type { TaskState } from '../a2a/task-state.js';
import type { TaskStoreLimits } from '../tasks/memory-store.js';
import { CENSUS, PICK, REFUSE, WRITE } from './redis-scripts.js';
import { MAX_REFUSALS, type Refusal } from '../tasks/refusal.js';
import { UNOBSERVED_AFTER_MS } from '../tasks/memory-store.js';
import { OwnerCache, SettledTasks } from './owner-cache.js';
import { RedisReads } from './redis-reads.js';
import { decodeCensus, decodeEvicted, decodeObserved, decodeStory } from './redis-replies.js';
import { WriteQueue, type QueuedWrite } from './write-queue.js';
import type { StoreStatus } from './store-status.js';

/** The scripts as ioredis commands (EVALSHA, loaded on first use). */
interface ScriptCommands {
  a2aWrite(...args: string[]): Promise<string[]>;
  a2aCensus(...args: string[]): Promise<string | null>;
  a2aRefuse(...args: string[]): Promise<number>;
  a2aPick(...args: string[]): Promise<string[]>;
}

/**
 * Candidates a pick looks at per unfinished state (redis-scripts.ts PICK): bounds the script's
 * time in Redis (about 1 µs each) when many tasks entered a state long ago but are polled still.
 */
const PICK_SCAN = 1000;

/** A sighting's reply as the write queue hands it back: the first in a batch carries its evictions. */
interface Sighted {
  readonly reply: string;
  readonly evicted: TaskEvent[];
}

export class RedisTaskStore implements TaskStore {
  private readonly queue: WriteQueue;
  private readonly owners: OwnerCache;
  private readonly contexts: OwnerCache;
  private readonly settled: SettledTasks;
  /** This replica, for the census lease. */
  private readonly replica = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly prefix: string;
  private readonly reads: RedisReads;

  constructor(
    private readonly client: Redis,
    private readonly config: RedisStateConfig,
    private readonly limits: TaskStoreLimits,
    readonly status: StoreStatus,
  ) {
    this.prefix = config.keyPrefix;
    // Three re-reads (as the pins, redis-pins.ts): a loaded replica may take longer than one retry to write.
    this.reads = new RedisReads(client, status, config.ownerReadRetry, 3);
    client.defineCommand('a2aWrite', { numberOfKeys: 0, lua: WRITE });
    client.defineCommand('a2aCensus', { numberOfKeys: 0, lua: CENSUS });
    client.defineCommand('a2aRefuse', { numberOfKeys: 0, lua: REFUSE });
    client.defineCommand('a2aPick', { numberOfKeys: 0, lua: PICK });
    const cacheSize = Math.min(limits.maxTasks, 100_000);
    this.owners = new OwnerCache(cacheSize, limits.ttlMs);
    this.contexts = new OwnerCache(cacheSize, limits.ttlMs);
    this.settled = new SettledTasks(cacheSize, limits.ttlMs);
    this.queue = new WriteQueue({
      maxPending: config.maxPending,
      ready: () => client.status === 'ready',
      send: (writes) => this.send(writes),
      dropped: (err) => status.failed('write', err),
    });
    client.on('ready', () => this.queue.flush());
  }

  /**
   * Queues the sighting. A task this replica has seen settle is not written again: its story
   * cannot change (story.ts), so polls of finished tasks cost Redis nothing. (Its entry then
   * expires `tasks.ttl` after it settled rather than after the last poll.) The one exception: a
   * shown sighting while the settled state is not known shown (owner-cache.ts SettledTasks).
   */
  observe(agent: string, taskId: string, sighting: TaskSighting): Promise<TaskEvent[]> {
    if (this.settled.covers(agent, taskId, sighting.shown)) return Promise.resolve([]);
    const { state, at, contextId, principal } = sighting;
    // This replica answers its own caller's next call without waiting for the write.
    if (principal !== undefined) this.owners.claim(agent, taskId, principal);
    const args = [
      'o',
      agent,
      taskId,
      state ?? '',
      String(at),
      contextId ?? '',
      principal ?? '',
      sighting.shown ? '1' : '0',
      sighting.agentAt === undefined ? '' : String(sighting.agentAt),
      sighting.tenant ?? '',
    ];
    return new Promise((resolve) =>
      this.queue.add(args, (sighted) => {
        if (sighted === undefined) return resolve([]);
        const { reply, evicted } = sighted as Sighted;
        const observed = decodeObserved(reply);
        if (observed.owner) this.owners.set(agent, taskId, observed.owner);
        if (observed.settled) this.settled.add(agent, taskId, observed.lastShown);
        resolve(evicted.length > 0 ? [...observed.events, ...evicted] : observed.events);
      }),
    );
  }

  async get(agent: string, taskId: string): Promise<TaskStory | undefined> {
    const [story, owner] = await this.reads.read(() =>
      this.client.hmget(this.taskKey(agent, taskId), 'story', 'owner'),
    );
    return story ? decodeStory(story, owner ?? null) : undefined;
  }

  /** Not queued: a refusal is a note on the timeline, lost (counted) rather than held while Redis is down. */
  refuse(agent: string, taskId: string, refusal: Refusal): void {
    const args = [this.prefix, agent, taskId, JSON.stringify(refusal), String(MAX_REFUSALS)];
    (this.client as unknown as ScriptCommands)
      .a2aRefuse(...args)
      .catch((err: unknown) => this.status.failed('write', err));
  }

  ownersOf(agent: string, taskIds: readonly string[]): Promise<Owners> {
    return this.reads.lookup(this.owners, agent, taskIds, (id) => this.client.hget(this.taskKey(agent, id), 'owner'));
  }

  claimContext(agent: string, contextId: string, principal: string, at: number): void {
    this.contexts.claim(agent, contextId, principal);
    this.queue.add(['c', agent, contextId, principal, String(at)], (owner) => {
      if (typeof owner === 'string' && owner !== '') this.contexts.set(agent, contextId, owner);
    });
  }

  contextOwnersOf(agent: string, contextIds: readonly string[]): Promise<Owners> {
    return this.reads.lookup(this.contexts, agent, contextIds, (id) =>
      this.client.get(`${this.prefix}ctx:${agent}:${id}`),
    );
  }

  async census(agents: readonly string[], now: number, purpose: CensusPurpose = 'gauges') {
    const { maxTasks, ttlMs } = this.limits;
    const args = [this.prefix, this.replica, String(this.config.censusLease), String(now), String(maxTasks)];
    args.push(
      String(ttlMs),
      JSON.stringify(agents),
      purpose,
      String(this.limits.unobservedAfterMs ?? UNOBSERVED_AFTER_MS),
    );
    let reply: string | null;
    try {
      reply = await (this.client as unknown as ScriptCommands).a2aCensus(...args);
    } catch (err) {
      this.status.failed('census', err);
      throw new StoreUnavailable(err);
    }
    return reply ? decodeCensus(reply) : undefined;
  }

  async pickUnobserved(agent: string, now: number, limit: number): Promise<StaleTask[]> {
    const after = this.limits.unobservedAfterMs ?? UNOBSERVED_AFTER_MS;
    const args = [this.prefix, agent, String(now), String(after), String(limit), String(PICK_SCAN)];
    let flat: string[];
    try {
      flat = await (this.client as unknown as ScriptCommands).a2aPick(...args);
    } catch (err) {
      this.status.failed('read', err);
      throw new StoreUnavailable(err);
    }
    const picked: StaleTask[] = [];
    for (let i = 0; i + 2 < flat.length; i += 3) {
      const tenant = flat[i + 2];
      picked.push({ taskId: flat[i]!, state: flat[i + 1] as TaskState, ...(tenant ? { tenant } : {}) });
    }
    return picked;
  }

  /** Sends what is still queued (for at most a second, e.g. while Redis is down), then disconnects. */
  async close(): Promise<void> {
    const until = Date.now() + 1000;
    while (this.queue.size > 0 && this.client.status === 'ready' && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await this.client.quit().catch(() => this.client.disconnect());
  }

  /** Queued writes not yet in Redis (tests, and the catch-up after an outage). */
  get pendingWrites(): number {
    return this.queue.size;
  }

  /** One WRITE call for the batch; the first sighting's reply carries the tasks it evicted. */
  private async send(writes: readonly QueuedWrite[]): Promise<unknown[]> {
    const args = [this.prefix, String(this.limits.maxTasks), String(this.limits.ttlMs)];
    for (const write of writes) args.push(...write.args);
    const replies = await (this.client as unknown as ScriptCommands).a2aWrite(...args);
    let evicted = decodeEvicted(replies[writes.length]!);
    return writes.map((write, i) => {
      if (write.args[0] !== 'o') return replies[i];
      const sighted: Sighted = { reply: replies[i]!, evicted };
      evicted = [];
      return sighted;
    });
  }

  private taskKey(agent: string, taskId: string): string {
    return `${this.prefix}task:${agent}:${taskId}`;
  }
}
