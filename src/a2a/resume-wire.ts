/**
 * The SubscribeToTask that continues a resumed stream nobody reads any more (docs/fleet.md
 * "Stream resume"), in the binding and version the client's call is written in, with the
 * client's own JSON-RPC id so the events it gets answer its request (JSON-RPC 2.0 §5). Shapes:
 * wire-reference §1 (SubscribeToTask; 0.3 tasks/resubscribe), REST `POST …/tasks/{id}:subscribe`
 * (spec §11.3.2; 0.3 under `/v1/`, kept from the client's path).
 */
import type { RequestFacts } from './request.js';

export interface ContinuationCall {
  readonly path: string;
  readonly body: Buffer;
}

/** Undefined when the call cannot be continued (not an HTTP stream call, or a path not recognised). */
export function continuationCall(facts: RequestFacts, path: string, taskId: string): ContinuationCall | undefined {
  const version = facts.wireVersion ?? facts.version;
  if (facts.binding === 'jsonrpc') {
    const method = version === '0.3' ? 'tasks/resubscribe' : 'SubscribeToTask';
    const params: Record<string, unknown> = { id: taskId };
    if (facts.tenant && version !== '0.3') params['tenant'] = facts.tenant;
    const id = typeof facts.jsonrpcId === 'string' || typeof facts.jsonrpcId === 'number' ? facts.jsonrpcId : null;
    return { path, body: Buffer.from(JSON.stringify({ jsonrpc: '2.0', id, method, params })) };
  }
  if (facts.binding !== 'rest') return undefined;
  const [bare, query] = path.split('?') as [string, string | undefined];
  if (!/message:stream$/.test(bare)) return undefined;
  const subscribe = bare.replace(/message:stream$/, `tasks/${encodeURIComponent(taskId)}:subscribe`);
  return { path: query === undefined ? subscribe : `${subscribe}?${query}`, body: Buffer.from('{}') };
}
