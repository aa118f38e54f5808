/**
 * A real redis-server (Debian's package; .ci/run installs it) on a free loopback port, with no
 * persistence, for the shared-state tests. `stop()` and `start()` again keep the port, so a test
 * can take the store away mid-traffic and bring it back.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface TestRedis {
  readonly port: number;
  /** `redis://127.0.0.1:<port>` */
  readonly url: string;
  /** Starts it again on the same port (after `stop`). */
  start(): Promise<void>;
  /** Stops it (SIGTERM) and waits for the process to exit. */
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export async function startRedis(): Promise<TestRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    const proc = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--loglevel', 'notice'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child = proc;
    await new Promise<void>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`redis-server did not start: ${out}`)), 10_000);
      const onData = (chunk: Buffer) => {
        out += chunk.toString();
        if (!out.includes('Ready to accept connections')) return;
        clearTimeout(timer);
        resolve();
      };
      proc.stdout!.on('data', onData);
      proc.stderr!.on('data', onData);
      proc.once('error', (err) => {
        clearTimeout(timer);
        reject(new Error(`cannot run redis-server (apt-get install redis-server): ${err.message}`));
      });
      proc.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`redis-server exited (${code}): ${out}`));
      });
    });
  };
  const stop = async () => {
    const proc = child;
    child = undefined;
    if (!proc || proc.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      proc.once('exit', () => resolve());
      proc.kill('SIGTERM');
    });
  };
  await start();
  return { port, url: `redis://127.0.0.1:${port}`, start, stop };
}
