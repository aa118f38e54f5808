/** Raw A2A 1.0 sends over fetch, for the idempotency tests that read headers and JSON-RPC ids. */
import { randomUUID } from 'node:crypto';

export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: Record<string, unknown>;
}

export interface SendOptions {
  readonly messageId?: string;
  readonly id?: number | string;
  readonly returnImmediately?: boolean;
  /** The A2A tenant (§5.7) the send names, in its params (JSON-RPC only). */
  readonly tenant?: string;
  readonly headers?: Record<string, string>;
  readonly signal?: AbortSignal;
}

export function message(text: string, messageId: string = randomUUID()): Record<string, unknown> {
  return { messageId, role: 'ROLE_USER', parts: [{ text, mediaType: 'text/plain' }] };
}

/** A JSON-RPC SendMessage to `{base}/a2a/jsonrpc`. */
export async function sendJsonRpc(base: string, text: string, opts: SendOptions = {}): Promise<Answer> {
  const body = {
    jsonrpc: '2.0',
    id: opts.id ?? 1,
    method: 'SendMessage',
    params: {
      ...(opts.tenant ? { tenant: opts.tenant } : {}),
      message: message(text, opts.messageId),
      configuration: { acceptedOutputModes: ['text/plain'], returnImmediately: opts.returnImmediately ?? false },
    },
  };
  return post(`${base}/a2a/jsonrpc`, body, opts);
}

/** An HTTP+JSON SendMessage to `{base}/a2a/rest/message:send`. */
export async function sendRest(base: string, text: string, opts: SendOptions = {}): Promise<Answer> {
  const body = {
    message: message(text, opts.messageId),
    configuration: { acceptedOutputModes: ['text/plain'], returnImmediately: opts.returnImmediately ?? false },
  };
  return post(`${base}/a2a/rest/message:send`, body, opts);
}

async function post(url: string, body: unknown, opts: SendOptions): Promise<Answer> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...opts.headers },
    body: JSON.stringify(body),
    signal: opts.signal ?? AbortSignal.timeout(15_000),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
}

/** The task of a JSON-RPC or REST SendMessage answer. */
export function taskOf(answer: Answer): { id: string; status: { state: string } } {
  const result = (answer.body['result'] ?? answer.body) as { task?: { id: string; status: { state: string } } };
  if (!result.task) throw new Error(`not a task: ${JSON.stringify(answer.body)}`);
  return result.task;
}
