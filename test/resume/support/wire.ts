/** Request bodies of the stream calls on each HTTP binding and version (wire-reference §1, the captures under test/fixtures/captures). */
import { randomUUID } from 'node:crypto';

export type Wire = 'jsonrpc-1.0' | 'rest-1.0' | 'jsonrpc-0.3' | 'rest-0.3';

const JSONRPC = '/a2a/jsonrpc';

/** A SendStreamingMessage whose text is `text` (v1--jsonrpc-send-streaming.http, v03--rest-send-streaming.http, ...). */
export function sendBody(wire: Wire, text: string): { path: string; body: string } {
  const messageId = randomUUID();
  switch (wire) {
    case 'jsonrpc-1.0':
      return {
        path: JSONRPC,
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'SendStreamingMessage',
          params: { message: { messageId, role: 'ROLE_USER', parts: [{ text }] } },
        }),
      };
    case 'rest-1.0':
      return {
        path: '/a2a/rest/message:stream',
        body: JSON.stringify({
          message: { messageId, role: 'ROLE_USER', parts: [{ text, mediaType: 'text/plain' }] },
          configuration: { acceptedOutputModes: ['text/plain'] },
        }),
      };
    case 'jsonrpc-0.3':
      return {
        path: JSONRPC,
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'message/stream',
          params: { message: { kind: 'message', messageId, role: 'user', parts: [{ kind: 'text', text }] } },
        }),
      };
    case 'rest-0.3':
      return {
        path: '/a2a/rest/v1/message:stream',
        body: JSON.stringify({ message: { messageId, role: 'ROLE_USER', content: [{ text }] } }),
      };
  }
}

/** The headers a call of `wire` carries: 1.0 says so (spec §3.6), 0.3 clients send none. */
export function wireHeaders(wire: Wire): Record<string, string> {
  return wire.endsWith('1.0') ? { 'a2a-version': '1.0' } : {};
}

/** A SubscribeToTask (0.3: tasks/resubscribe) of `taskId`. */
export function subscribeBody(wire: Wire, taskId: string): { path: string; body: string } {
  switch (wire) {
    case 'jsonrpc-1.0':
      return {
        path: JSONRPC,
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'SubscribeToTask', params: { id: taskId } }),
      };
    case 'jsonrpc-0.3':
      return {
        path: JSONRPC,
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tasks/resubscribe', params: { id: taskId } }),
      };
    case 'rest-1.0':
      return { path: `/a2a/rest/tasks/${taskId}:subscribe`, body: '' };
    case 'rest-0.3':
      return { path: `/a2a/rest/v1/tasks/${taskId}:subscribe`, body: '' };
  }
}
