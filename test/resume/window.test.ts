/**
 * The replay window's bounds and the stream writer (src/resume/): events and bytes caps drop the
 * oldest, the TTL forgets a window, the in-memory store keeps at most `memoryStreams` windows,
 * and a stream is numbered from its first event that names a task (a direct Message gets no id).
 * The same contract runs against the Redis store on a real redis-server.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Redis } from 'ioredis';
import { MemoryReplayWindows } from '../../src/resume/memory-window.js';
import { RedisReplayWindows } from '../../src/resume/redis-window.js';
import { ResumableStream } from '../../src/resume/stream-ids.js';
import { parseEventId } from '../../src/resume/event-id.js';
import type { ReplayWindows } from '../../src/resume/window.js';
import { startRedis, type TestRedis } from '../support/redis-server.js';

const task = (id: string) =>
  `data: {"jsonrpc":"2.0","id":1,"result":{"task":{"id":"${id}","status":{"state":"TASK_STATE_WORKING"}}}}\n\n`;
const update = (id: string, n: number) =>
  `data: {"jsonrpc":"2.0","id":1,"result":{"statusUpdate":{"taskId":"${id}","n":${n}}}}\n\n`;

/** Relays `events` through a writer; returns what the client got and the window's key. */
function relay(windows: ReplayWindows, events: string[], limits = { events: 100, bytes: 1 << 20, ttlMs: 60_000 }) {
  const stream = new ResumableStream('agent', 'jsonrpc', windows, limits);
  const out = events.map((e) => stream.push(Buffer.from(e))?.toString() ?? '');
  stream.end('end');
  return out;
}

function idsOf(out: string[]): string[] {
  return out.flatMap((o) => [...o.matchAll(/^id: (.*)$/gm)].map((m) => m[1]!));
}

let redis: TestRedis;
let client: Redis;

beforeAll(async () => {
  redis = await startRedis();
  client = new Redis(redis.url, { maxRetriesPerRequest: 0 });
});

afterAll(async () => {
  client?.disconnect();
  await redis?.stop();
});

const stores: [string, () => ReplayWindows][] = [
  ['memory', () => new MemoryReplayWindows(100)],
  ['redis', () => new RedisReplayWindows(client, `t${Math.random()}:`)],
];

for (const [name, make] of stores) {
  describe(`replay window (${name})`, () => {
    it('numbers the events from the first that names a task; each is kept as the agent sent it', async () => {
      const windows = make();
      const events = [task('t1'), ...[1, 2, 3].map((n) => update('t1', n))];
      const out = relay(windows, events);
      const ids = idsOf(out).map((id) => parseEventId(id)!);
      expect(ids.map((i) => [i.taskId, i.seq])).toEqual([
        ['t1', 1],
        ['t1', 2],
        ['t1', 3],
        ['t1', 4],
      ]);
      const key = `agent:${Buffer.from('t1').toString('base64url')}.${ids[0]!.stream}`;
      const read = await waitFor(
        () => windows.read(key, 1),
        (r) => r.ended !== undefined,
      );
      expect(read.events.map((e) => e.bytes.toString())).toEqual(events.slice(1));
      expect(read.ended).toBe('end');
      expect(read.live).toBe(false);
    });

    it('keeps at most `events` events and `bytes` bytes, the oldest dropped', async () => {
      const windows = make();
      const events = [task('t2'), ...Array.from({ length: 9 }, (_, n) => update('t2', n))];
      const byCount = idsOf(relay(windows, events, { events: 3, bytes: 1 << 20, ttlMs: 60_000 }));
      const keyOf = (id: string) => {
        const p = parseEventId(id)!;
        return `agent:${Buffer.from(p.taskId).toString('base64url')}.${p.stream}`;
      };
      const counted = await waitFor(
        () => windows.read(keyOf(byCount[0]!), 0),
        (r) => r.ended !== undefined,
      );
      expect(counted.events.map((e) => e.seq)).toEqual([8, 9, 10]);
      const size = Buffer.byteLength(update('t2', 1));
      const byBytes = idsOf(relay(windows, events, { events: 100, bytes: size * 2, ttlMs: 60_000 }));
      const sized = await waitFor(
        () => windows.read(keyOf(byBytes[0]!), 0),
        (r) => r.ended !== undefined,
      );
      expect(sized.events.map((e) => e.seq)).toEqual([9, 10]);
    });

    it('gives a stream that opens with a Message (no task) no ids, and keeps nothing', () => {
      const windows = make();
      const message = 'data: {"jsonrpc":"2.0","id":1,"result":{"message":{"messageId":"m","parts":[]}}}\n\n';
      const out = relay(windows, [message]);
      expect(out).toEqual([message]);
    });
  });
}

describe('replay window bounds in memory', () => {
  it('forgets a window after its TTL', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const windows = new MemoryReplayWindows(10);
      windows.append('k', 1, Buffer.from('data: x\n\n'), { minSeq: 1, ttlMs: 1000 });
      expect((await windows.read('k', 0)).found).toBe(true);
      vi.setSystemTime(Date.now() + 1001);
      expect((await windows.read('k', 0)).found).toBe(false);
    } finally {
      vi.useRealTimers();
    }
  });

  it('keeps at most `memoryStreams` windows, the least recently used dropped', async () => {
    const windows = new MemoryReplayWindows(2);
    for (const k of ['a', 'b', 'c']) windows.append(k, 1, Buffer.from('data: x\n\n'), { minSeq: 1, ttlMs: 60_000 });
    expect((await windows.read('a', 0)).found).toBe(false);
    expect((await windows.read('c', 0)).found).toBe(true);
  });
});

/** Redis writes are not waited for: read until they have landed. */
async function waitFor<T>(read: () => Promise<T>, done: (v: T) => boolean): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const v = await read();
    if (done(v)) return v;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('deadline: the window writes did not land within 2 s');
}
