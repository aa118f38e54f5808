/**
 * Pipeline step 3c: which replica of the agent a call goes to (docs/fleet.md "Task affinity").
 * A call about a task — GetTask, CancelTask, SubscribeToTask, the push-config calls, a
 * SendMessage carrying `taskId` — goes to the replica the task was pinned to when an answer first
 * named it (pins.ts); a SendMessage carrying only a `contextId` follows its conversation the same
 * way. Anything else, or an id never pinned, is a new conversation: the picker's choice (replica-pick.ts).
 *
 * A task pinned to a replica that is gone — no longer configured, or unhealthy or ejected — is
 * answered TaskNotFound (reason TASK_REPLICA_GONE) in the caller's protocol: resending it to
 * another replica would only meet a task that replica never had, or worse, start its
 * conversation afresh there. A drained replica keeps its tasks.
 *
 * An agent configured with `url` (one replica, no `upstreams`) asks no store and takes no extra
 * turn: the step returns the replica. One configured with `upstreams`, even one, reads its pins.
 */
import type { Exchange } from '../exchange/exchange.js';
import type { RequestFacts } from '../a2a/request.js';
import { GatewayError } from '../errors/gateway-error.js';
import { taskReplicaGone } from '../errors/a2a-error.js';
import { StoreUnavailable } from '../tasks/tracker.js';
import type { Upstream } from '../transport/upstream.js';
import type { PinKind, Pins } from './pins.js';
import type { Replica } from '../transport/replica.js';

/** The call's replica, or a promise of it when a pin must be read; throws (or rejects) a refusal. */
export function place(exchange: Exchange, pins: Pins): Replica | Promise<Replica> {
  const { upstream } = exchange;
  const about = pinnedBy(exchange.request);
  if (!upstream.config.replicated) {
    const only = upstream.replicas[0]!;
    return about || !only.health.drained ? only : drained(upstream);
  }
  if (!about) return picked(upstream);
  return pinnedReplica(upstream, pins, about);
}

/** What a call's replica is pinned by: its task, else (for a send) its conversation. */
function pinnedBy(facts: RequestFacts | undefined): { kind: PinKind; id: string } | undefined {
  if (facts === undefined) return undefined;
  if (facts.taskId !== undefined) return { kind: 'task', id: facts.taskId };
  const send = facts.operation === 'SendMessage' || facts.operation === 'SendStreamingMessage';
  return send && facts.contextId !== undefined ? { kind: 'context', id: facts.contextId } : undefined;
}

async function pinnedReplica(upstream: Upstream, pins: Pins, about: { kind: PinKind; id: string }): Promise<Replica> {
  let url: string | undefined;
  try {
    url = await pins.replicaOf(upstream.name, about.kind, about.id);
  } catch (err) {
    if (!(err instanceof StoreUnavailable) || upstream.config.affinity.failClosed) throw unavailable(upstream, err);
    return picked(upstream); // failOpen: the call may meet a replica without its task (TaskNotFound)
  }
  if (url === undefined) return picked(upstream); // never pinned here (or forgotten): a new conversation
  const replica = upstream.replicas.find((r) => r.url === url);
  // In panic (no replica healthy, pick.ts) a pinned call still goes to its own replica.
  if (replica && (replica.health.healthy || !upstream.replicas.some((r) => r.health.healthy))) return replica;
  const why = replica ? `${replica.health.state}` : 'no longer configured';
  if (about.kind === 'task') throw taskReplicaGone(about.id, upstream.name, url, why);
  throw new GatewayError(
    'UPSTREAM_UNREACHABLE',
    `the conversation ${about.id} lives on replica ${url} of agent ${upstream.name}, which is ${why}; start a new conversation (no contextId)`,
    { agent: upstream.name, replica: url, contextId: about.id },
  );
}

function picked(upstream: Upstream): Replica {
  return upstream.picker.pick() ?? drained(upstream);
}

function drained(upstream: Upstream): never {
  throw new GatewayError(
    'AGENT_DRAINED',
    `every replica of agent ${upstream.name} is drained: it takes no new conversations; retry later`,
    { agent: upstream.name },
    { headers: { 'retry-after': '5' } },
  );
}

function unavailable(upstream: Upstream, err: unknown): GatewayError {
  return new GatewayError(
    'STATE_UNAVAILABLE',
    `the gateway cannot tell which replica of agent ${upstream.name} holds this task: ${(err as Error).message}`,
    { agent: upstream.name },
    { headers: { 'retry-after': '1' } },
  );
}

/**
 * The replica of `taskId` for a call whose own facts do not name it: stream resume's upstream
 * SubscribeToTask after a re-sent SendStreamingMessage (the task comes from its Last-Event-ID,
 * src/resume/decision.ts), and the gateway's own GetTask confirming a stale task
 * (src/confirm/confirm.ts). The same rules as a call about that task.
 */
export function placeTask(upstream: Upstream, pins: Pins, taskId: string): Promise<Replica> {
  if (!upstream.config.replicated) return Promise.resolve(upstream.replicas[0]!);
  return pinnedReplica(upstream, pins, { kind: 'task', id: taskId });
}
