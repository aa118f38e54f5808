/**
 * Task ownership on ListTasks: the agent lists every task it has; the caller
 * gets only the ones it owns. The answer is held whole (bounded), parsed, filtered and written
 * anew — the one place the gateway changes an agent's answer for a reason other than its URLs,
 * because passing it on would hand out other callers' tasks. An answer that cannot be filtered
 * (too large, compressed, not a ListTasksResponse) is refused, never passed on.
 *
 * `totalSize` becomes the number of tasks kept: the agent's count would tell the caller how many
 * tasks others have. Pages may therefore hold fewer than `pageSize` tasks (docs/security.md "Access control").
 * `nextPageToken` is sealed for the caller: the agent's may name another caller's task (page-tokens.ts).
 */
import type { JsonBinding } from '../a2a/operations.js';
import type { BodyRewrite, RewriteResult } from '../exchange/answer-rewrite.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { Owners } from '../tasks/tracker.js';
import type { SealPageToken } from './page-tokens.js';
import { withRewrittenBody } from '../transport/headers.js';

/** Largest ListTasks answer the filter holds (a page of 100 tasks with history fits easily). */
export const LIST_TASKS_MAX_BYTES = 8 * 1024 * 1024;

/** The owners of the listed tasks (from the task store; may reject when it cannot answer). */
export type OwnersOf = (taskIds: readonly string[]) => Promise<Owners>;

export function unfilterable(agent: string, why: string): GatewayError {
  return new GatewayError(
    'UPSTREAM_INVALID',
    `the ListTasks answer of agent "${agent}" cannot be limited to the caller's own tasks (task ownership): ${why}`,
    { agent },
  );
}

type Json = Record<string, unknown>;

/** The ListTasksResponse inside the answer: the JSON-RPC `result`, or the REST body itself. */
/** Which of a page's task ids are `caller`'s: one owner lookup for the page, the rule both
 * bindings' filters apply (this file, list-tasks-grpc.ts). */
export async function ownedBy(
  caller: string,
  ids: readonly (string | undefined)[],
  ownersOf: OwnersOf,
): Promise<(id: string | undefined) => boolean> {
  const owners = await ownersOf(ids.filter((id): id is string => id !== undefined));
  return (id) => id !== undefined && owners.get(id) === caller;
}

function listOf(doc: unknown, binding: JsonBinding): Json | undefined {
  if (!doc || typeof doc !== 'object') return undefined;
  const list = binding === 'jsonrpc' ? (doc as Json).result : doc;
  return list && typeof list === 'object' && Array.isArray((list as Json).tasks) ? (list as Json) : undefined;
}

async function filtered(
  body: Buffer,
  binding: JsonBinding,
  caller: string,
  ownersOf: OwnersOf,
  seal: SealPageToken,
): Promise<Buffer | string> {
  let doc: unknown;
  try {
    doc = JSON.parse(body.toString('utf8'));
  } catch {
    return 'not JSON';
  }
  // A JSON-RPC error carries no tasks: it goes on unchanged.
  if (binding === 'jsonrpc' && doc && typeof doc === 'object' && 'error' in doc) return body;
  const list = listOf(doc, binding);
  if (!list) return 'not a ListTasksResponse';
  const idOf = (task: unknown) => {
    const id = (task as Json | null)?.id;
    return typeof id === 'string' ? id : undefined;
  };
  const mine = await ownedBy(caller, (list.tasks as unknown[]).map(idOf), ownersOf);
  const tasks = (list.tasks as unknown[]).filter((task) => mine(idOf(task)));
  list.tasks = tasks;
  if ('totalSize' in list) list.totalSize = tasks.length;
  const next = list.nextPageToken;
  if (typeof next === 'string' && next !== '') list.nextPageToken = seal(next);
  else if (next !== undefined && next !== '') return 'its nextPageToken is not a string';
  return Buffer.from(JSON.stringify(doc));
}

/** The rewrite for a 2xx ListTasks answer to `caller`. */
export function listTasksFilter(
  agent: string,
  binding: JsonBinding,
  caller: string,
  ownersOf: OwnersOf,
  seal: SealPageToken,
): BodyRewrite {
  return {
    maxBytes: LIST_TASKS_MAX_BYTES,
    oversize: unfilterable(
      agent,
      `the answer is larger than ${LIST_TASKS_MAX_BYTES} bytes; ask for a smaller pageSize`,
    ),
    async apply(body, headers): Promise<RewriteResult> {
      const encoded = headerValue(headers, 'content-encoding');
      if (encoded && encoded !== 'identity')
        return { refusal: unfilterable(agent, `the answer is ${encoded}-encoded`) };
      const out = await filtered(body, binding, caller, ownersOf, seal);
      if (typeof out === 'string') return { refusal: unfilterable(agent, out) };
      if (out === body) return { body, headers };
      return { body: out, headers: withRewrittenBody(headers, out.length) };
    },
  };
}

function headerValue(headers: readonly string[], name: string): string | undefined {
  for (let i = 0; i < headers.length; i += 2) if (headers[i]!.toLowerCase() === name) return headers[i + 1];
  return undefined;
}
