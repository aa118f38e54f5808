/**
 * Keys a reload cannot apply: they are bound to things made once at start-up and kept across
 * reloads (src/gateway/gateway.ts): the listeners' addresses and socket options, the logger, the metrics
 * registry, the task tracker, inspection's budget and observers, the shutdown plan, and the
 * process layout (`workers`, `state`, added by the cluster and task-store work). A reload that
 * changes one still applies the rest: the key keeps its running value and is named in a
 * "needs a restart" warning. The client limits Node lets us change on a live server are applied
 * (src/transport/client-limits.ts `retuneClientLimits`); `headerBytes` (the parser's
 * maxHeaderSize) and `connectionsPerClient` (a connection listener) are fixed at creation.
 */
import { isDeepStrictEqual } from 'node:util';
import type { GatewayConfig } from '../config/schema.js';

export const RESTART_ONLY: readonly string[] = [
  'listen',
  'admin.listen',
  'limits.headerBytes',
  'limits.connectionsPerClient',
  'limits.grpc',
  'shutdown',
  'log',
  'metrics',
  'inspection',
  'tasks',
  'workers',
  'state',
  'idempotency',
  'resume',
];

type Tree = Record<string, unknown>;

function valueAt(config: unknown, path: string): unknown {
  let node: unknown = config;
  for (const key of path.split('.')) node = node && typeof node === 'object' ? (node as Tree)[key] : undefined;
  return node;
}

/** The restart-only keys whose value differs between the running and the next config. */
export function restartOnlyChanges(running: GatewayConfig, next: GatewayConfig): string[] {
  const fixed = RESTART_ONLY.filter((path) => !isDeepStrictEqual(valueAt(running, path), valueAt(next, path)));
  return [...fixed, ...agentListenerChanges(running, next)];
}

/**
 * An agent's own gRPC port (`agents.{name}.grpc.listen`) is a listener, opened at start-up
 * (src/bindings/grpc/listeners.ts): one added, moved or removed by a reload needs a restart. The rest of
 * the agent's config applies (a removed port keeps serving the agent until then).
 */
function agentListenerChanges(running: GatewayConfig, next: GatewayConfig): string[] {
  const names = new Set([...Object.keys(running.agents), ...Object.keys(next.agents)]);
  return [...names]
    .filter((name) => !isDeepStrictEqual(running.agents[name]?.grpc.listen, next.agents[name]?.grpc.listen))
    .map((name) => `agents.${name}.grpc.listen`);
}

/** `next` with the restart-only keys at their running values: the config the new generation is made of. */
export function withRunningRestartOnly(running: GatewayConfig, next: GatewayConfig): GatewayConfig {
  const effective = structuredClone(next) as unknown as Tree;
  for (const path of RESTART_ONLY) {
    const keys = path.split('.');
    const last = keys.pop()!;
    let parent = effective;
    for (const key of keys) parent = (parent[key] ??= {}) as Tree;
    const value = valueAt(running, path);
    if (value === undefined) delete parent[last];
    else parent[last] = value;
  }
  return effective as unknown as GatewayConfig;
}
