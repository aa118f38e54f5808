/**
 * Where the gateway sends its own GetTask when it confirms a task nobody has asked about
 * (src/confirm/confirm.ts; docs/operations.md "Confirming stale tasks"): the first interface the agent's card
 * advertises that the gateway can call over HTTP — JSON-RPC or HTTP+JSON, in card order, which
 * is the agent's order of preference (wire-reference §3, §6.5) — in that interface's version.
 * gRPC-only cards, and interfaces outside the path the agent is mounted under, give none: the
 * gateway then does not confirm that agent's tasks. Pure.
 */
import { interfacesOf } from './card-interfaces.js';
import type { HttpSend } from './rescue-wire.js';
import type { JsonBinding, ProtocolVersion } from './operations.js';

export interface ConfirmTarget {
  readonly binding: JsonBinding;
  readonly version: ProtocolVersion;
  /** The interface's path on the agent's origin (under its mount path), no trailing slash. */
  readonly path: string;
}

const BINDINGS: Readonly<Record<string, JsonBinding>> = { JSONRPC: 'jsonrpc', 'HTTP+JSON': 'rest' };

export function confirmTarget(card: unknown, mountPath: string): ConfirmTarget | undefined {
  const mount = mountPath.replace(/\/+$/, '');
  for (const { url, binding, version } of interfacesOf(card)) {
    const ours = BINDINGS[binding?.toUpperCase() ?? ''];
    const path = pathOf(url);
    if (!ours || path === undefined || (path !== mount && !path.startsWith(`${mount}/`))) continue;
    // A 1.0 list entry may name no version of its own; the 0.3 fields carry the card's (0.3.x).
    return { binding: ours, version: version?.startsWith('0.') ? '0.3' : '1.0', path };
  }
  return undefined;
}

/**
 * The target as the rescue's wire helpers take a send (src/a2a/rescue-wire.ts `getTaskCall`):
 * a REST GetTask path is made from a SendMessage path (`…/message:send` → `…/tasks/{id}`), under
 * `/v1` in 0.3 (wire-reference §6.4). `historyLength`: 1.0 `0` asks for no messages (the state
 * is all the gateway reads); 0.3 has no way to ask for none (`0` is unlimited, §5.6), so `1`.
 * `tenant`: the one the task's first call named, kept on its story.
 */
export function confirmSend(target: ConfirmTarget, tenant?: string): HttpSend {
  // 1.0 names a tenant in JSON-RPC params (getTaskCall) or as the REST path's `/{tenant}` segment (§5.7); 0.3 has none.
  const named = tenant && target.version === '1.0' ? tenant : undefined;
  const segment = named ? `/${encodeURIComponent(named)}` : '';
  const rest = target.version === '0.3' ? `${target.path}/v1/message:send` : `${target.path}${segment}/message:send`;
  return {
    binding: target.binding,
    version: target.version,
    jsonrpcId: null,
    historyLength: target.version === '1.0' ? 0 : 1,
    ...(named && target.binding === 'jsonrpc' ? { tenant: named } : {}),
    followUp: false,
    path: target.binding === 'jsonrpc' ? target.path || '/' : rest,
    doc: {},
  };
}

function pathOf(url: string): string | undefined {
  try {
    return new URL(url).pathname.replace(/\/+$/, '');
  } catch {
    return undefined;
  }
}
