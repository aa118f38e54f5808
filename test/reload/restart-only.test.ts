/** Restart-only keys (src/reload/restart-only.ts): named when changed, kept at their running
 * values in the config a reload applies; and reloads run one at a time (from-file.ts). */
import { describe, expect, it } from 'vitest';
import { restartOnlyChanges, withRunningRestartOnly } from '../../src/reload/restart-only.js';
import { serialised } from '../../src/reload/from-file.js';
import { configOf } from './support.js';

const agents = { a: { url: 'http://127.0.0.1:1' } };

describe('restart-only keys', () => {
  it('are named when a reload changes them, and keep their running values', () => {
    const running = configOf(agents);
    const next = configOf(
      { ...agents, b: { url: 'http://127.0.0.1:2' } },
      {
        listen: { host: '127.0.0.1', port: 8123 },
        tasks: { ttl: '5m' },
        limits: { headerBytes: '32KiB', keepAliveTimeout: '7s' },
      },
    );
    expect(restartOnlyChanges(running, next)).toEqual(['listen', 'limits.headerBytes', 'tasks']);
    const applied = withRunningRestartOnly(running, next);
    expect(applied.listen).toEqual(running.listen);
    expect(applied.tasks).toEqual(running.tasks);
    expect(applied.limits.headerBytes).toBe(running.limits.headerBytes);
    expect(applied.limits.keepAliveTimeout).toBe(7000);
    expect(Object.keys(applied.agents)).toEqual(['a', 'b']);
    expect(next.listen.port).toBe(8123); // the given config is not changed
  });

  it("name an agent's own gRPC port added, moved or removed (a listener opened at start-up)", () => {
    const running = configOf({ a: { url: 'http://127.0.0.1:1', grpc: { listen: { port: 50052 } } } });
    const next = configOf({
      a: { url: 'http://127.0.0.1:1', grpc: { listen: { port: 50053 } } },
      b: { url: 'http://127.0.0.1:2', grpc: { listen: { port: 50054 } } },
      c: { url: 'http://127.0.0.1:3' },
    });
    expect(restartOnlyChanges(running, next)).toEqual(['agents.a.grpc.listen', 'agents.b.grpc.listen']);
    expect(restartOnlyChanges(next, next)).toEqual([]);
  });

  it('are not named when unchanged', () => {
    expect(
      restartOnlyChanges(configOf(agents), configOf(agents, { auth: { apiKeys: { k: { key: 'k'.repeat(16) } } } })),
    ).toEqual([]);
  });
});

describe('serialised reloads', () => {
  it('start one when the one before has finished', async () => {
    const order: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let calls = 0;
    const run = serialised(async () => {
      const n = ++calls;
      order.push(`start ${n}`);
      if (n === 1) await gate;
      order.push(`end ${n}`);
      return n;
    });
    const first = run();
    const second = run();
    await new Promise((r) => setImmediate(r));
    expect(order).toEqual(['start 1']);
    release();
    expect(await Promise.all([first, second])).toEqual([1, 2]);
    expect(order).toEqual(['start 1', 'end 1', 'start 2', 'end 2']);
  });
});
