/** The CLI contract: check-config exits 0/1 with the problem named; the server starts, serves,
 * reloads its config on SIGHUP and drains on SIGTERM. Runs the built CLI (`npm test` builds first). */
import { describe, expect, it } from 'vitest';
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { startPeerV1 } from '../peers/peer-v1.js';
import { startOtlpReceiver } from '../telemetry/support/otlp-receiver.js';
import { V1, call, rpc, wireMessageV1 } from '../access/support/harness.js';

const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'a2a-gw-cli-'));
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

describe('a2a-gateway CLI', () => {
  it('is built', () => {
    expect(existsSync(CLI), 'run `npm run build` first').toBe(true);
  });

  it('check-config accepts the shipped demo config', () => {
    const run = spawnSync(
      process.execPath,
      [CLI, 'check-config', fileURLToPath(new URL('../../config/gateway.yaml', import.meta.url))],
      { encoding: 'utf8' },
    );
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/valid \(3 agents/);
  });

  it('check-config exits 1 naming the file, key path and problem', () => {
    const bad = file('bad.yaml', 'agents:\n  reviewer:\n    url: not-a-url\n');
    const run = spawnSync(process.execPath, [CLI, 'check-config', bad], { encoding: 'utf8' });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(bad);
    expect(run.stderr).toContain('agents.reviewer.url: must be an absolute http:// or https:// URL');
  });

  it('refuses to start on an invalid config, exiting non-zero with the message', () => {
    const bad = file('bad2.yaml', 'listen: { port: -1 }\nagents:\n  a:\n    url: http://127.0.0.1:1\n');
    const run = spawnSync(process.execPath, [CLI, '--config', bad], { encoding: 'utf8', timeout: 10_000 });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/listen\.port/);
  });

  it('names the listener whose address is taken, and exits 1', async () => {
    const squatter = createServer();
    await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', resolve));
    const taken = (squatter.address() as AddressInfo).port;
    try {
      const config = file(
        'taken.yaml',
        `listen: { host: 127.0.0.1, port: 0 }\nadmin: { listen: { host: 127.0.0.1, port: ${taken} } }\nagents:\n  a:\n    url: http://127.0.0.1:1\n`,
      );
      const run = spawnSync(process.execPath, [CLI, '--config', config], { encoding: 'utf8', timeout: 10_000 });
      expect(run.status).toBe(1);
      expect(run.stderr).toContain(`cannot listen on 127.0.0.1:${taken} (admin.listen): EADDRINUSE`);
    } finally {
      await new Promise<void>((resolve) => squatter.close(() => resolve()));
    }
  });

  it('explains its usage on a bad command line', () => {
    const run = spawnSync(process.execPath, [CLI, 'frobnicate'], { encoding: 'utf8' });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/usage:/);
  });

  it('serves, honours --port, and exits 0 on SIGTERM', async () => {
    const peer = await startPeerV1();
    const config = file(
      'ok.yaml',
      `listen: { host: 127.0.0.1, port: 1 }\nadmin: { listen: { port: 0 } }\nagents:\n  a:\n    url: ${peer.url}\n`,
    );
    const { child, url } = await startCli(['--config', config, '--port', '0']);
    try {
      const res = await request(`${url}/healthz`);
      expect(res.statusCode).toBe(200);
      await res.body.dump();
      const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      child.kill('SIGKILL');
      await peer.close();
    }
  });

  it('reloads its config file on SIGHUP: a stream open across it flows on, a new agent answers; an invalid file is logged by key path and changes nothing', async () => {
    // `a` streams slowly (400 ms a step), so the stream is still open when the reload lands.
    const [a, b] = [await startPeerV1({ stepMs: 400 }), await startPeerV1()];
    const head = 'listen: { host: 127.0.0.1, port: 0 }\nadmin: { listen: { port: 0 } }\nagents:\n';
    const config = file('reload.yaml', `${head}  a:\n    url: ${a.url}\n`);
    const { child, url, output } = await startCli(['--config', config]);
    const sendTo = async (agent: string) =>
      (
        await call(`${url}/agents/${agent}/a2a/jsonrpc`, undefined, {
          headers: V1,
          body: rpc('SendMessage', { message: wireMessageV1('hi') }),
        })
      ).status;
    const logged = async (text: string) => {
      while (!output().includes(text)) await new Promise((r) => setTimeout(r, 50));
    };
    try {
      expect(await sendTo('b')).toBe(404);
      const stream = await openStream(`${url}/agents/a/a2a/jsonrpc`);
      expect(await stream.next()).toContain('TASK_STATE_SUBMITTED'); // open, and under way
      writeFileSync(config, `${head}  a:\n    url: ${a.url}\n  b:\n    url: ${b.url}\n`);
      child.kill('SIGHUP');
      await logged('"msg":"config reloaded"');
      expect(await sendTo('b')).toBe(200);
      const rest = await stream.rest();
      expect(rest).toContain('TASK_STATE_COMPLETED'); // the stream opened before the reload ran to its end
      expect(rest.trimEnd().endsWith('}')).toBe(true);

      writeFileSync(config, `${head}  a:\n    url: ${a.url}\n  b:\n    url: not-a-url\n`);
      child.kill('SIGHUP');
      await logged('agents.b.url: must be an absolute http:// or https:// URL');
      expect(output()).toContain('config reload failed, the previous config stays');
      expect(await sendTo('a')).toBe(200);
      expect(await sendTo('b')).toBe(200);
    } finally {
      child.kill('SIGKILL');
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('exports spans from its export thread (the built worker) and flushes them on SIGTERM', async () => {
    const [peer, receiver] = await Promise.all([startPeerV1(), startOtlpReceiver()]);
    const config = file(
      'traced.yaml',
      `listen: { host: 127.0.0.1, port: 0 }\nadmin: { listen: { port: 0 } }\nagents:\n  a:\n    url: ${peer.url}\n`,
    );
    // A long batch delay: the spans can only arrive through the flush at shutdown.
    const { child, url } = await startCli(['--config', config], {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_BSP_SCHEDULE_DELAY: '600000',
    });
    try {
      const body = {
        jsonrpc: '2.0',
        id: 1,
        method: 'SendMessage',
        params: { message: { messageId: 'cli-trace-1', role: 'ROLE_USER', parts: [{ text: 'hello' }] } },
      };
      const res = await request(`${url}/agents/a/a2a/jsonrpc`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
        body: JSON.stringify(body),
      });
      expect(res.statusCode).toBe(200);
      await res.body.dump();
      const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      const spans = receiver.spans.filter((s) => s.attributes['gen_ai.agent.name'] === 'a');
      expect(spans.map((s) => [s.name, s.kind]).sort()).toEqual([
        ['SendMessage', 2],
        ['SendMessage', 3],
      ]);
      const server = spans.find((s) => s.kind === 2)!;
      expect(server.attributes['a2a.message.id']).toBe('cli-trace-1');
      expect(spans.find((s) => s.kind === 3)!.parentSpanId).toBe(server.spanId);
    } finally {
      child.kill('SIGKILL');
      await Promise.all([peer.close(), receiver.close()]);
    }
  });
});

/** A SendStreamingMessage (SSE) to `endpoint`: the first chunk, then the rest of the body to its end. */
async function openStream(endpoint: string): Promise<{ next(): Promise<string>; rest(): Promise<string> }> {
  const res = await fetch(endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...V1, accept: 'text/event-stream' },
    body: JSON.stringify(rpc('SendStreamingMessage', { message: wireMessageV1('stream this') })),
  });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const next = async () => {
    const { value, done } = await reader.read();
    return done ? '' : decoder.decode(value, { stream: true });
  };
  const rest = async () => {
    let text = '';
    for (let chunk = await next(); chunk !== ''; chunk = await next()) text += chunk;
    return text;
  };
  return { next, rest };
}

/** Starts the built CLI and waits for its "listening" log line. */
async function startCli(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ child: ChildProcessWithoutNullStreams; url: string; output: () => string }> {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: 'pipe', env: { ...process.env, ...env } });
  let out = '';
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no listening line: ${out}`)), 10_000);
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /"url":"(http:\/\/[^"]+)"/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
  });
  return { child, url, output: () => out };
}
