// Everything a run stands on: the upstreams (nginx with fixed answers, the SSE server), the
// OTLP sink, the redis-server of `gateway+redis`, and the paths under test, each started and checked before it is measured.
import { chmodSync, mkdirSync, writeFileSync, openSync, writeSync, closeSync } from 'node:fs';
import path from 'node:path';
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { startProcess, freePort, waitForHttp, httpRequest, findExecutable } from './procs.mjs';
import { upstreamConfig, startNginx } from './nginx.mjs';
import {
  A2A_HEADERS,
  SMALL_MESSAGE_RESPONSE,
  SMALL_MESSAGE_RESPONSE_03,
  TASK_10K_RESPONSE,
  TASK_10K_RESPONSE_03,
  sendMessageRequest,
  agentCard,
  hugeTaskParts,
  filler,
} from './payloads.mjs';
import {
  directPath,
  nginxPath,
  nodePath,
  floorPaths,
  gatewayPath,
  GATEWAY_VARIANTS,
  benchDir,
  repoDir,
} from './paths.mjs';
import { openStream } from './sse-client.mjs';

const MiB = 1024 * 1024;

/** Write the 100 MB (or quick: 20 MB) JSON Task with one huge artifact for scenario 5. */
function writeLargeBody(file, bytes) {
  const { before, after, fillBytes } = hugeTaskParts(bytes);
  const fd = openSync(file, 'w');
  try {
    writeSync(fd, before);
    const chunk = Buffer.from(filler(MiB));
    for (let left = fillBytes; left > 0; left -= chunk.length) writeSync(fd, chunk, 0, Math.min(left, chunk.length));
    writeSync(fd, after);
  } finally {
    closeSync(fd);
  }
  chmodSync(file, 0o644);
}

/** The bodies nginx serves as files: too long for an nginx config parameter (4 KB). */
function writeUpstreamFiles(runDir, largeBytes) {
  const large = path.join(runDir, 'large-task.json');
  if (largeBytes) writeLargeBody(large, largeBytes);
  else writeFileSync(large, '{}');
  const write = (name, body) => {
    const file = path.join(runDir, name);
    writeFileSync(file, body);
    chmodSync(file, 0o644);
    return file;
  };
  return {
    large,
    task: write('task-10k.json', TASK_10K_RESPONSE),
    task03: write('task-10k-03.json', TASK_10K_RESPONSE_03),
  };
}

function startChildServer(name, script, port) {
  const args = [path.join(benchDir, 'servers', script), '--port', String(port)];
  return startProcess(name, process.execPath, args, { cwd: repoDir });
}

/**
 * Start the upstreams: one nginx for the fixed answers (small, task, large) and the SSE server;
 * with `grpc`, the gRPC upstream too. With `a2a03`, nginx answers an A2A 0.3 call to small and
 * task in 0.3 (nginx.mjs `upstreamConfig`; the SSE server always does, by the JSON-RPC method):
 * only when a variant translating to 0.3 runs, so other runs keep nginx's config as it was. The
 * large agent has no 0.3 answer: scenario 5's bodies are over the 16 MiB a translated answer may
 * have (src/bindings/http/translate.ts MAX_ANSWER_BYTES). Sets `ctx.routes` (agent name →
 * upstream URL) and `ctx.upstreamPids`.
 */
export async function startUpstreams(ctx, { largeBytes, grpc = false, a2a03 = false }) {
  const ports = { small: await freePort(), task: await freePort(), large: await freePort(), sse: await freePort() };
  const routes = new Map(Object.entries(ports).map(([n, p]) => [n, `http://127.0.0.1:${p}`]));
  const files = writeUpstreamFiles(ctx.runDir, largeBytes);
  const dir = path.join(ctx.runDir, 'nginx-upstream');
  mkdirSync(dir, { recursive: true });
  const agent = (name, answer) => ({ name, port: ports[name], card: agentCard(routes.get(name), name), ...answer });
  const conf = upstreamConfig(dir, [
    agent('small', { body: SMALL_MESSAGE_RESPONSE, ...(a2a03 ? { body03: SMALL_MESSAGE_RESPONSE_03 } : {}) }),
    agent('task', { file: files.task, ...(a2a03 ? { file03: files.task03 } : {}) }),
    agent('large', { file: files.large }),
  ]);
  const ready = `${routes.get('small')}/.well-known/agent-card.json`;
  const nginx = await startNginx(ctx.nginxBin, 'nginx-upstream', dir, conf, ready);
  const sse = startChildServer('sse-upstream', 'sse-upstream.mjs', ports.sse);
  await waitForHttp(`${routes.get('sse')}/.well-known/agent-card.json`, { entry: sse });
  ctx.routes = routes;
  ctx.upstreamPids = { nginx: nginx.workerPid, sse: sse.child.pid };
  ctx.log(
    `upstreams: nginx (worker ${nginx.workerPid}) on ${ports.small}/${ports.task}/${ports.large}, ` +
      `SSE node (pid ${sse.child.pid}) on ${ports.sse}`,
  );
  if (grpc) await startGrpcUpstream(ctx);
}

/**
 * The h2c gRPC upstream of scenarios 8 and 9 (servers/grpc-upstream.mjs); sets `ctx.grpcUpstream`
 * (host:port), which gives the gateway variants their gRPC agent, and `ctx.upstreamPids.grpc`.
 */
async function startGrpcUpstream(ctx) {
  const port = await freePort();
  const entry = startChildServer('grpc-upstream', 'grpc-upstream.mjs', port);
  const deadline = Date.now() + 10_000;
  while (!(await canConnect(port))) {
    if (Date.now() > deadline || entry.exited) throw new Error(`grpc-upstream did not start: ${entry.stderrTail}`);
    await sleep(50);
  }
  ctx.grpcUpstream = `127.0.0.1:${port}`;
  ctx.upstreamPids.grpc = entry.child.pid;
  ctx.log(`upstream: gRPC h2c node (pid ${entry.child.pid}) on ${port}`);
}

/**
 * Start a loopback redis-server (no persistence) for the `gateway+redis` variant; sets
 * `ctx.redisUrl`. Without the binary the variant reports itself as not available.
 */
export async function startRedisServer(ctx) {
  const bin = findExecutable('redis-server');
  if (!bin) return;
  const port = await freePort();
  const entry = startProcess('redis', bin, [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    'no',
  ]);
  const deadline = Date.now() + 10_000;
  while (!(await canConnect(port))) {
    if (Date.now() > deadline || entry.child.exitCode !== null) throw new Error('redis-server did not start');
    await sleep(50);
  }
  ctx.redisUrl = `redis://127.0.0.1:${port}`;
}

function canConnect(port) {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

/** Start the loopback OTLP sink the tracing variants export to; sets `ctx.otlpSinkUrl`. */
export async function startOtlpSink(ctx) {
  const port = await freePort();
  const sink = startChildServer('otlp-sink', 'otlp-sink.mjs', port);
  ctx.otlpSinkUrl = `http://127.0.0.1:${port}`;
  await waitForHttp(`${ctx.otlpSinkUrl}/stats`, { entry: sink });
}

/** The default gateway from another build (`--baseline-cli`), measured beside `gateway`. */
function baselinePath(baselineCli) {
  const shipped = GATEWAY_VARIANTS.find((v) => v.name === 'gateway');
  const variant = { ...shipped, name: 'gateway@baseline', label: `gateway as shipped, the build at ${baselineCli}` };
  return gatewayPath(variant, { cli: baselineCli });
}

/**
 * The paths this run measures: direct always; with --paths only those named; otherwise every
 * path but the optional variants (`optional: 'quick'` ones are optional in --quick runs only),
 * plus those named with --with.
 */
export function selectPaths(opts, cli) {
  const all = [
    directPath(),
    nginxPath(),
    nodePath(),
    ...floorPaths(),
    ...GATEWAY_VARIANTS.map((v) => gatewayPath(v, { cli })),
    ...(opts.baselineCli ? [baselinePath(opts.baselineCli)] : []),
  ];
  const named = (p) => opts.paths?.includes(p.name) || opts.with.includes(p.name) || p.name === 'gateway@baseline';
  const optional = (v) => v?.optional === true || (v?.optional === 'quick' && opts.quick);
  const wanted = (p) => (opts.paths ? named(p) : !optional(p.variant ?? p) || named(p));
  return all.filter((p) => p.name === 'direct' || wanted(p));
}

async function post(url, body) {
  const headers = { ...A2A_HEADERS, 'content-length': Buffer.byteLength(body) };
  return httpRequest(url, { method: 'POST', headers, body, timeoutMs: 5000 });
}

/**
 * Check a started path once: the unary answers must be the upstream's byte for byte and a short
 * stream must arrive whole. Returns {fatal} when the path cannot be measured, else {problems}.
 */
export async function verifyPath(p) {
  const problems = [];
  const body = sendMessageRequest();
  // A variant may expect other bytes (gateway+translate: the 0.3 answers translated back).
  const expect = p.variant?.expect ?? { small: SMALL_MESSAGE_RESPONSE, task: TASK_10K_RESPONSE };
  const small = await post(`${p.agentUrl('small')}/a2a/jsonrpc`, body);
  if (small.status !== 200)
    return { fatal: `SendMessage (small) answered HTTP ${small.status}: ${small.body.slice(0, 200)}` };
  if (small.body !== expect.small) problems.push("small response body differs from the upstream's");
  const task = await post(`${p.agentUrl('task')}/a2a/jsonrpc`, body);
  if (task.status !== 200) return { fatal: `SendMessage (task) answered HTTP ${task.status}` };
  if (task.body !== expect.task) problems.push("task response body differs from the upstream's");
  const bench = { events: 5, eventBytes: 300, mode: 'burst' };
  const s = await openStream(`${p.agentUrl('sse')}/a2a/jsonrpc`, bench, { timeoutMs: 10_000 });
  if (s.status !== 200 || s.events !== 5)
    return { fatal: `SendStreamingMessage: HTTP ${s.status}, ${s.events}/5 events ${s.error ?? ''}` };
  return { problems };
}

/**
 * Start, verify and probe one path. Returns the verification's warnings, or null when the path
 * cannot be measured (`info.reason` says why; the path is stopped again).
 */
async function bringUp(ctx, p, info) {
  let problems;
  try {
    await p.start(ctx);
    const v = await verifyPath(p);
    if (v.fatal) throw new Error(`verification failed: ${v.fatal}`);
    problems = v.problems;
  } catch (err) {
    info.reason = `failed to start: ${err.message.slice(0, 500)}`;
    await p.stop().catch(() => {});
    return null;
  }
  try {
    await p.probe?.(ctx);
  } catch (err) {
    info.reason = `not available: ${err.message}`;
    await p.stop().catch(() => {});
    return null;
  }
  return problems;
}

/**
 * Start every path in turn; the ones that come up join `ctx.paths`. Returns one entry per path
 * (up or not, with the reason) for results.paths.
 */
export async function startPaths(ctx, paths) {
  const infos = [];
  for (const p of paths) {
    const info = {
      name: p.name,
      label: p.label,
      kind: p.kind,
      available: false,
      reason: null,
      pid: null,
      problems: [],
    };
    infos.push(info);
    const av = p.available(ctx);
    const problems = av.ok ? await bringUp(ctx, p, info) : null;
    if (!av.ok) info.reason = av.reason;
    if (!problems) {
      ctx.log(`path ${p.name}: ${info.reason}`);
      continue;
    }
    Object.assign(info, { problems, available: true, pid: p.pid });
    ctx.paths.push(p);
    const pid = p.pid ? ` (measured pid ${p.pid})` : '';
    const warning = problems.length ? ` — warning: ${problems.join('; ')}` : '';
    ctx.log(`path ${p.name}: up${pid}${warning}`);
  }
  return infos;
}

/**
 * Restart every proxy before an RSS scenario, so what earlier scenarios left in a heap does not
 * hide (or inflate) what this one costs. A proxy that does not come back is dropped from
 * `ctx.paths` with a note.
 */
export async function restartProxies(ctx, why) {
  ctx.log(`restarting the proxies (${why})`);
  for (const p of ctx.paths.slice()) {
    if (p.kind === 'direct') continue;
    try {
      await p.stop();
      await p.start(ctx);
      const v = await verifyPath(p);
      if (v.fatal) throw new Error(v.fatal);
    } catch (err) {
      ctx.notes.push(`${p.name} could not be restarted before ${why}: ${err.message}`);
      ctx.paths.splice(ctx.paths.indexOf(p), 1);
      await p.stop().catch(() => {});
    }
  }
}
