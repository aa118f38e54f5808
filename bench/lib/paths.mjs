// The paths under test. Each fronts the same upstreams and exposes them as
// `<base>/agents/<name>/...` (direct: the upstream's own URL). A path is
//   { name, label, kind, available(): {ok, reason}, start(ctx): Promise<void>,
//     agentUrl(name): string, pid: number|null (the process to measure), stop(): Promise<void>,
//     grpcAddress?(): string|null (host:port of the gRPC agent, scenarios 8 and 9) }
// When the gRPC upstream runs (ctx.grpcUpstream), direct is that upstream and every gateway
// variant gets an agent `grpc` with a gRPC port of its own; nginx and node carry no gRPC.
// Gateway variants are data: add an entry to GATEWAY_VARIANTS to benchmark another config
// (tracing exporter on, timeout rescue on, ...) side by side with the others.
import { writeFileSync, existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort, startProcess, stopProcess, waitForHttp, httpRequest } from './procs.mjs';
import { proxyConfig, startNginx } from './nginx.mjs';
import { adminListenFor } from './admin-listen.mjs';
import { checkFeeds, openFeeds } from './feed-clients.mjs';
import { gcProbeArgs } from './gc-log.mjs';
import { SMALL_MESSAGE_RESPONSE, TASK_10K_RESPONSE, via03 } from './payloads.mjs';
import { checkTranslated } from './translate-check.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
export const benchDir = path.resolve(here, '..');
export const repoDir = path.resolve(benchDir, '..');
export const gatewayCli = path.join(repoDir, 'dist', 'cli.js');

/**
 * Gateway variants, each run as its own process side by side with the other paths.
 * `config` is merged over the generated base config ({listen, admin, agents}) and `agentConfig` into
 * every agent's entry; the config schema is strict, so only keys the gateway knows. `optional`
 * variants run only when asked for (--with NAME or --paths); `optional: 'quick'` ones only so in
 * --quick runs. `env(ctx)` is added to the environment (every OTEL_* variable of the harness's
 * own environment is removed first, so "off" means off). `nodeArgs` go before dist/cli.js.
 * `config` may be a function of the run's context (e.g. for `ctx.redisUrl`); `redis: true` makes the
 * harness start a loopback redis-server first.
 * `probe(ctx)` runs after the start-up check: if it throws, the variant is reported as not
 * available with that message instead of being measured.
 * `upstream03: true` has nginx answer a call without `A2A-Version` (an A2A 0.3 call) in 0.3
 * (setup.mjs `startUpstreams`); `expect: {small, task}` replaces the upstream's SendMessage answers
 * the start-up check compares with.
 * `feedClients: N` puts the admin listener on a port the harness knows and, once the gateway is
 * up (and after every restart), opens N live console feeds (`/console/api/feed`,
 * feed-clients.mjs) that read everything until the gateway is stopped.
 */
/** What telemetry costs: metrics off (tracing is already off in `gateway`). */
const NO_METRICS = {
  name: 'gateway-no-metrics',
  label: 'gateway, metrics off (metrics.enabled: false; tracing off as in `gateway`)',
  optional: 'quick',
  config: { metrics: { enabled: false } },
};

export const GATEWAY_VARIANTS = [
  {
    name: 'gateway',
    label: 'gateway (as shipped: default config, tracing exporter off)',
    config: {},
  },
  tracingVariant({ name: 'gateway+tracing', label: 'gateway, tracing exporter on (OTLP/HTTP to a loopback sink)' }),
  // For operators: the ratio sampler many production set-ups use (10 % of new traces). Not the
  // target row, which samples everything.
  tracingVariant({
    name: 'gateway+tracing-10pct',
    label:
      'gateway, tracing exporter on, 10 % of traces sampled (OTEL_TRACES_SAMPLER=parentbased_traceidratio, ARG 0.1)',
    optional: true,
    env: { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' },
  }),
  tracingVariant({
    name: 'gateway+tracing-protobuf',
    label: 'gateway, tracing exporter on, OTLP/HTTP protobuf (OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf)',
    optional: true,
    env: { OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' },
  }),
  {
    // What inspection costs (issue: "the gateway with and without it"): a plain proxy otherwise.
    name: 'gateway-no-inspection',
    label: 'gateway, inspection off (inspection.enabled: false): the same proxy without decoding',
    optional: 'quick',
    config: { inspection: { enabled: false } },
  },
  {
    // Issue #17: how much of the RSS per open stream (scenarios 4 and 10) is V8's young
    // generation growing under the allocation of opening streams, not the streams themselves.
    name: 'gateway+semi-space-2mb',
    label: 'gateway under node --max-semi-space-size=2 (young generation capped at 2 MB semi-spaces)',
    optional: true,
    config: {},
    nodeArgs: ['--max-semi-space-size=2'],
  },
  NO_METRICS,
  {
    // Scenario 7's control: a second copy of its reference, measured side by side with it like
    // the telemetry variants. What it shows is the method's own bias and noise, not a cost.
    ...NO_METRICS,
    name: 'gateway-no-metrics-control',
    label:
      'a second gateway-no-metrics (scenario 7 control: the method against itself); ' +
      'only with `--with gateway-no-metrics-control`',
    optional: true,
  },
  {
    // Shared state (issue #14): task stories, owners and rate limits in a loopback redis-server
    // the harness starts. Its writes are asynchronous (src/state/write-queue.ts), so the unary
    // rows should stay within noise of `gateway`; the task scenario writes one story per call.
    name: 'gateway+redis',
    label: 'gateway, shared state on Redis (state.store: redis; a loopback redis-server)',
    optional: 'quick',
    redis: true,
    config: (ctx) => ({ state: { store: 'redis', redis: { url: ctx.redisUrl } } }),
  },
  {
    // The tail (issue #17): what the access log costs (one pino line per exchange, batched).
    name: 'gateway-no-access-log',
    label: 'gateway, access log off (log.access: false); only with --with',
    optional: true,
    config: { log: { access: false } },
  },
  {
    // The tail (issue #17): V8 starts the young generation at 1 MB and grows it (up to 16 MB)
    // only under a high allocation rate, so at a moderate rate it scavenges every few dozen
    // requests, and every scavenge delays the requests in flight. A floor of 16 MB makes
    // scavenges rarer (each costs about the same: what survives, not what died).
    name: 'gateway-young16',
    label: 'gateway under node --min-semi-space-size=16 (young generation never below 16 MB); only with --with',
    optional: true,
    config: {},
    nodeArgs: ['--min-semi-space-size=16'],
  },
  {
    // Every core (issue #17): two cluster workers (needs shared state, so Redis as in
    // `gateway+redis`, its one-worker counterpart). CPU is summed over the primary and the
    // workers (procs.mjs readTreeCpuSeconds); RSS is the primary's.
    name: 'gateway-workers2',
    label: 'gateway, 2 cluster workers (workers: 2; state.store: redis on a loopback redis-server)',
    optional: 'quick',
    redis: true,
    // Each worker warms its own JIT on its share of the warm-up load: three times as long.
    warmupFactor: 3,
    config: (ctx) => ({ workers: 2, state: { store: 'redis', redis: { url: ctx.redisUrl } } }),
  },
  {
    // Task affinity (docs/fleet.md): every agent configured as `upstreams: [its url]`, so each
    // call goes through placement (a pin read for calls about a task) and every task an answer
    // names is pinned. One replica, so only the affinity's own work differs from `gateway`.
    name: 'gateway+affinity',
    label: 'gateway, task affinity on (every agent as `upstreams: [url]`: placement and pins, in memory)',
    optional: true,
    config: {},
    replicated: true,
  },
  {
    // Task affinity with its pins in Redis, as every gateway replica shares them: a call about a
    // task reads its pin from Redis once per process, then from the process's cache (pins never
    // change, src/fleet/pins.ts); each named task is one `SET NX`. Counterpart: `gateway+redis`.
    name: 'gateway+affinity+redis',
    label: 'gateway, task affinity with pins in Redis (upstreams: [url]; state.store: redis)',
    optional: true,
    redis: true,
    replicated: true,
    config: (ctx) => ({ state: { store: 'redis', redis: { url: ctx.redisUrl } } }),
  },
  {
    // Stream resume (docs/fleet.md "Stream resume"): every SSE event of a SendStreamingMessage
    // framed, given an `id:` line and appended to the stream's replay window in memory. Only
    // with --with or --paths (measured in bench/ANALYSIS.md, "Stream resume").
    name: 'gateway+resume',
    label: 'gateway, stream resume on (ids and an in-memory replay window per stream)',
    optional: true,
    config: {},
    agentConfig: { resume: { enabled: true } },
  },
  {
    // The same with the windows in Redis Streams (XADD per event, fire and forget).
    name: 'gateway+resume-redis',
    label: 'gateway, stream resume on, windows in Redis (state.store: redis; a loopback redis-server)',
    optional: true,
    redis: true,
    config: (ctx) => ({ state: { store: 'redis', redis: { url: ctx.redisUrl } } }),
    agentConfig: { resume: { enabled: true } },
  },
  {
    // Protocol translation (docs/translation.md): every agent speaks A2A 0.3 and the bench's
    // clients keep calling in 1.0, so the gateway translates each call down (body parsed,
    // rewritten, serialised) and each answer back up (a unary answer held whole, an SSE answer
    // event by event). The upstreams answer a 0.3 call in 0.3 with the same content and sizes
    // (setup.mjs `startUpstreams`, servers/sse-upstream.mjs). What a client gets is the 1.0 answer
    // less the text parts' `mediaType` (0.3 has none): `expect`, checked byte for byte at start-up.
    // The probe makes sure translation happened and succeeded (lib/translate-check.mjs). Only with
    // --with or --paths (measured in bench/ANALYSIS.md, "Protocol translation").
    name: 'gateway+translate',
    label: 'gateway, every agent an A2A 0.3 agent (translate: {agentVersion: "0.3"}); clients call in 1.0',
    optional: true,
    config: {},
    agentConfig: { translate: { agentVersion: '0.3' } },
    upstream03: true,
    expect: { small: via03(SMALL_MESSAGE_RESPONSE), task: via03(TASK_10K_RESPONSE) },
    probe: (ctx, p) => checkTranslated(p),
  },
  {
    // The timeout rescue. Left out of --quick runs (to stay under two minutes) unless named with
    // --with or --paths.
    name: 'gateway+rescue',
    label: 'gateway, timeout rescue on (timeoutRescue.enabled for every agent)',
    optional: 'quick',
    config: {},
    agentConfig: { timeoutRescue: { enabled: true } },
  },
  {
    // The live console (issue #15): 20 consoles reading the feed the whole run, each exchange
    // written to all of them. docs/performance.md: within 5 % of `gateway`.
    name: 'gateway+console',
    label: 'gateway, 20 live console feeds reading /console/api/feed on the admin listener',
    optional: 'quick',
    config: {},
    feedClients: 20,
    probe: (ctx, p) => checkFeeds(p.feeds),
  },
];

/**
 * A gateway variant exporting traces to the loopback OTLP sink, with standard OpenTelemetry SDK
 * settings plus `env`. Batches go out every 1 s instead of every 5 s so the probe sees an export
 * quickly (under load they go out on size, 512 spans, anyway). The probe fails the variant when
 * no export reaches the sink, rather than measuring a copy of `gateway`.
 */
function tracingVariant({ name, label, optional, env = {} }) {
  return {
    name,
    label,
    ...(optional ? { optional } : {}),
    config: {},
    otlpSink: true,
    env: (ctx) => ({
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_ENDPOINT: ctx.otlpSinkUrl,
      OTEL_BSP_SCHEDULE_DELAY: '1000',
      ...env,
    }),
    async probe(ctx) {
      const deadline = Date.now() + 4000;
      while (Date.now() < deadline) {
        const s = JSON.parse((await httpRequest(`${ctx.otlpSinkUrl}/stats`)).body);
        if (s.requests > 0) return;
        await sleep(200);
      }
      throw new Error(
        'tracing exporter not active in this build (no OTLP export reached the sink within 4 s of traffic)',
      );
    },
  };
}

/** The harness's environment without OTEL_* settings. */
function baseEnv() {
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('OTEL_')));
}

export function directPath() {
  let routes;
  let grpc = null;
  return {
    name: 'direct',
    label: 'direct (no proxy)',
    kind: 'direct',
    pid: null,
    available: () => ({ ok: true }),
    async start(ctx) {
      routes = ctx.routes;
      grpc = ctx.grpcUpstream ?? null;
    },
    agentUrl: (name) => routes.get(name),
    grpcAddress: () => grpc,
    async stop() {},
  };
}

export function nginxPath() {
  let port;
  let started;
  const p = {
    name: 'nginx',
    label: 'nginx (1 worker, proxy_buffering off, keep-alive upstream)',
    kind: 'nginx',
    pid: null,
    available: (ctx) =>
      ctx.nginxBin ? { ok: true } : { ok: false, reason: 'nginx not installed (apt-get install nginx)' },
    async start(ctx) {
      port = await freePort();
      const dir = path.join(ctx.runDir, 'nginx-proxy');
      mkdirSync(dir, { recursive: true });
      started = await startNginx(
        ctx.nginxBin,
        'nginx-proxy',
        dir,
        proxyConfig(dir, port, ctx.routes),
        `http://127.0.0.1:${port}/agents/${ctx.readyAgent}/.well-known/agent-card.json`,
      );
      p.pid = started.workerPid;
      p.masterPid = started.entry.child.pid;
    },
    agentUrl: (name) => `http://127.0.0.1:${port}/agents/${name}`,
    async stop() {
      if (started) await stopProcess(started.entry);
    },
  };
  return p;
}

export function nodePath() {
  return childProxyPath({
    name: 'node',
    label: 'plain Node pass-through (http-proxy-middleware on node:http)',
    script: 'node-proxy.mjs',
  });
}

/**
 * The floors of the forwarding path (bench/servers/floor-proxy.mjs; issue #17): `floor-http` is
 * the gateway's design with none of its work (node:http + one undici dispatch), `floor-net` bytes
 * moved between node:net sockets. In full runs; in --quick runs only with --with or --paths.
 */
export function floorPaths() {
  return [
    childProxyPath({
      name: 'floor-http',
      label: "floor of the gateway's design: node:http server + undici Pool.dispatch, no gateway code",
      script: 'floor-proxy.mjs',
      args: ['--mode', 'http'],
      optional: 'quick',
    }),
    childProxyPath({
      name: 'floor-net',
      label: 'floor of a node:net design: sockets pinned client to agent, request heads rewritten, answers piped',
      script: 'floor-proxy.mjs',
      args: ['--mode', 'net'],
      optional: 'quick',
    }),
  ];
}

/** A harness-owned Node proxy (bench/servers/<script>), routing /agents/<name>/ as the gateway does. */
function childProxyPath({ name, label, script, args: extra = [], optional }) {
  let port;
  let entry;
  const p = {
    name,
    label,
    kind: 'node',
    ...(optional ? { optional } : {}),
    pid: null,
    available: () => ({ ok: true }),
    async start(ctx) {
      port = await freePort();
      const args = [path.join(benchDir, 'servers', script), ...extra, '--port', String(port)];
      for (const [agent, url] of ctx.routes) args.push('--route', `${agent}=${url}`);
      p.gcLog = path.join(ctx.runDir, `gc-${name}.log`);
      const gc = gcProbeArgs(p.gcLog);
      entry = startProcess(name, process.execPath, [...gc.nodeArgs, ...args], {
        cwd: repoDir,
        env: { ...process.env, ...gc.env },
      });
      await waitForHttp(`http://127.0.0.1:${port}/agents/${ctx.readyAgent}/.well-known/agent-card.json`, { entry });
      p.pid = entry.child.pid;
    },
    agentUrl: (agent) => `http://127.0.0.1:${port}/agents/${agent}`,
    async stop() {
      if (entry) await stopProcess(entry);
    },
  };
  return p;
}

/**
 * Write a variant's config into the run directory: the generated {listen, admin, agents} plus its
 * own. With `grpcPort`, an agent `grpc` too: its gRPC address is the gRPC upstream (`grpc.url`, so
 * no card lookup) and it gets a gRPC port of its own on the gateway; its HTTP `url` is the small
 * agent's, whose card the gateway's /readyz waits for (an h2c server has no HTTP/1.1 card).
 */
function writeGatewayConfig(ctx, variant, { port, profiled, cli, adminPort, grpcPort }) {
  const agents = {};
  for (const [name, url] of ctx.routes)
    agents[name] = { ...(variant.replicated ? { upstreams: [url] } : { url }), ...(variant.agentConfig ?? {}) };
  if (grpcPort)
    agents.grpc = {
      url: ctx.routes.get('small'),
      ...(variant.agentConfig ?? {}),
      grpc: { url: ctx.grpcUpstream, listen: { host: '127.0.0.1', port: grpcPort } },
    };
  const own = typeof variant.config === 'function' ? variant.config(ctx) : (variant.config ?? {});
  const admin = adminPort ? { admin: { listen: { host: '127.0.0.1', port: adminPort } } } : adminListenFor(cli);
  const config = { listen: { host: '127.0.0.1', port }, ...admin, agents, ...own };
  const slug = variant.name.replace(/[^a-z0-9]+/gi, '_');
  const file = path.join(ctx.runDir, `gateway-${slug}${profiled ? '-prof' : ''}.yaml`);
  // JSON is YAML: no YAML writer needed.
  writeFileSync(file, `${JSON.stringify(config, null, 2)}\n`);
  return file;
}

/** Node options that write a .cpuprofile into `profileDir` when the harness stops the gateway. */
function profileArgs(profileDir) {
  mkdirSync(profileDir, { recursive: true });
  const preload = pathToFileURL(path.join(benchDir, 'lib', 'exit-on-signal.mjs')).href;
  return ['--cpu-prof', '--cpu-prof-dir', profileDir, '--import', preload];
}

/**
 * A gateway variant. With `profileDir`, runs under `node --cpu-prof` and a preload that turns
 * SIGTERM into process.exit() so the profile is written when the harness stops it.
 */
export function gatewayPath(variant, { profileDir, cli = gatewayCli } = {}) {
  let port;
  let grpcPort = null;
  let entry;
  const missing = `not available (build missing: ${path.relative(repoDir, cli) || cli}; run \`npm run build\`)`;
  const p = {
    name: profileDir ? `${variant.name} (profiled)` : variant.name,
    label: variant.label ?? variant.name,
    kind: 'gateway',
    variant,
    warmupFactor: variant.warmupFactor ?? 1,
    pid: null,
    available: (ctx) => {
      if (!existsSync(cli)) return { ok: false, reason: missing };
      if (variant.redis && !ctx.redisUrl)
        return { ok: false, reason: 'redis-server not installed (apt-get install redis-server)' };
      return { ok: true };
    },
    async start(ctx) {
      port = await freePort();
      const adminPort = variant.feedClients ? await freePort() : undefined;
      grpcPort = ctx.grpcUpstream ? await freePort() : null;
      const file = writeGatewayConfig(ctx, variant, { port, profiled: Boolean(profileDir), cli, adminPort, grpcPort });
      // Measured runs log their GC pauses (lib/gc-probe.mjs; cluster workers inherit the preload).
      p.gcLog = profileDir ? null : path.join(ctx.runDir, `gc-${variant.name.replace(/[^a-z0-9]+/gi, '_')}.log`);
      const gc = p.gcLog ? gcProbeArgs(p.gcLog) : { nodeArgs: [], env: {} };
      const nodeArgs = [...(variant.nodeArgs ?? []), ...gc.nodeArgs, ...(profileDir ? profileArgs(profileDir) : [])];
      const args = [...nodeArgs, cli, '--config', file, '--host', '127.0.0.1', '--port', String(port)];
      entry = startProcess(p.name, process.execPath, args, {
        // The gateway writes one JSON access-log line per exchange on stdout: discard it.
        stdio: ['ignore', 'ignore', 'pipe'],
        env: { ...baseEnv(), ...(variant.env?.(ctx) ?? {}), ...gc.env },
        cwd: repoDir,
      });
      await waitForHttp(`http://127.0.0.1:${port}/healthz`, { entry, timeoutMs: 20000 });
      await waitForHttp(`http://127.0.0.1:${port}/readyz`, { entry, timeoutMs: 20000 });
      p.pid = entry.child.pid;
      if (variant.feedClients)
        p.feeds = await openFeeds(`http://127.0.0.1:${adminPort}/console/api/feed`, variant.feedClients);
    },
    probe: variant.probe ? (ctx) => variant.probe(ctx, p) : undefined,
    agentUrl: (name) => `http://127.0.0.1:${port}/agents/${name}`,
    grpcAddress: () => (grpcPort ? `127.0.0.1:${grpcPort}` : null),
    async stop() {
      p.feeds?.close();
      p.feeds = undefined;
      if (entry) await stopProcess(entry, { graceMs: 10000 });
    },
    get stderrTail() {
      return entry?.stderrTail ?? '';
    },
  };
  return p;
}
