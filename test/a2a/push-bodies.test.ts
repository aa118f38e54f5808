/**
 * Push-notification webhook bodies (captures `*--push-*.http`) carry the same payloads as stream
 * events: a 1.0 StreamResponse (§4.3.3, wire-reference §2.3) or a bare kind-tagged 0.3 object
 * (wire-reference §6.3). The payload reader must place them all.
 */
import { describe, expect, it } from 'vitest';
import { readPayload } from '../../src/a2a/payload.js';
import { loadCapture } from './captures.js';

const EXPECTED: Record<string, { kind: string; state?: string; shape?: string }> = {
  'v03--push-jsonrpc-01.http': { kind: 'task', state: 'TASK_STATE_SUBMITTED', shape: '0.3' },
  'v03--push-rest-01.http': { kind: 'task', state: 'TASK_STATE_SUBMITTED', shape: '0.3' },
  'v1--push-jsonrpc-01.http': { kind: 'task', state: 'TASK_STATE_SUBMITTED', shape: '1.0' },
  'v1--push-jsonrpc-02.http': { kind: 'statusUpdate', state: 'TASK_STATE_WORKING', shape: '1.0' },
  'v1--push-jsonrpc-03.http': { kind: 'artifactUpdate' },
  'v1--push-jsonrpc-04.http': { kind: 'artifactUpdate' },
  'v1--push-jsonrpc-05.http': { kind: 'statusUpdate', state: 'TASK_STATE_COMPLETED', shape: '1.0' },
  'v1--push-rest-01.http': { kind: 'task', state: 'TASK_STATE_SUBMITTED', shape: '1.0' },
  'v1compat--push-v03client-jsonrpc-01.http': { kind: 'task', state: 'TASK_STATE_SUBMITTED', shape: '0.3' },
};

describe.each(Object.entries(EXPECTED))('%s', (name, want) => {
  it('is read as the expected payload', () => {
    const body = JSON.parse(new TextDecoder().decode(loadCapture(name).request.body));
    const payload = readPayload(body, '', 'rest');
    expect({ kind: payload.kind, state: payload.state, shape: payload.shape }).toEqual({
      state: undefined,
      shape: undefined,
      ...want,
    });
    expect(payload.taskId).toMatch(/^[0-9a-f-]{36}$/);
    expect(payload.ambiguous).toBe(false);
  });
});
