/**
 * Opens and closes every gRPC listener of a config: the shared one (`listen.grpc`) and one per
 * agent with `grpc.listen`. Listeners outlive reloads (they read the current generation per
 * call), so their addresses are restart-only keys (src/reload/restart-only.ts). The bound ports
 * are what agent cards advertise (`GrpcPorts`), known once the listeners listen.
 */
import type { GatewayConfig } from '../../config/schema.js';
import { listenAt, type ListenAt } from '../../transport/listen.js';
import { closeGrpcListener, createGrpcListener, type GrpcHandlers, type GrpcListener } from './listener.js';
import type { GrpcPorts } from '../../cards/grpc-address.js';
import { ClientResetBudget } from './reset-guard.js';

export { grpcPorts, type GrpcPorts } from '../../cards/grpc-address.js';

export interface GrpcListeners {
  readonly ports: GrpcPorts;
  /** `http://host:port` of the shared listener, when there is one. */
  url: string | undefined;
  readonly open: GrpcListener[];
}

export async function openGrpcListeners(
  config: GatewayConfig,
  handlers: { readonly current: GrpcHandlers },
  isDraining: () => boolean,
  ports: GrpcPorts,
): Promise<GrpcListeners> {
  const result: GrpcListeners = { ports, url: undefined, open: [] };
  // One client's premature resets count across every gRPC listener (reset-guard.ts).
  const resets = new ClientResetBudget(config.limits.grpc.prematureResetsPerClient);
  const start = async (at: ListenAt, key: string, agent?: string) => {
    const listener = createGrpcListener({ handlers, isDraining, limits: config.limits, agent, resets });
    result.open.push(listener);
    const url = await listenAt(listener.server, at, key);
    return { url, port: Number(new URL(url).port) };
  };
  try {
    const shared = config.listen.grpc;
    if (shared) {
      const bound = await start({ host: shared.host ?? config.listen.host, port: shared.port }, 'listen.grpc');
      result.url = bound.url;
      ports.shared = bound.port;
    }
    for (const [name, agent] of Object.entries(config.agents)) {
      const own = agent.grpc.listen;
      if (!own) continue;
      const bound = await start(
        { host: own.host ?? config.listen.host, port: own.port },
        `agents.${name}.grpc.listen`,
        name,
      );
      ports.agents.set(name, bound.port);
    }
  } catch (err) {
    await closeGrpcListeners(result, true);
    throw err;
  }
  return result;
}

export async function closeGrpcListeners(listeners: GrpcListeners, now = false): Promise<void> {
  await Promise.all(listeners.open.map((l) => closeGrpcListener(l, now)));
}
