/**
 * Where the gateway's own GetTask goes when it confirms a stale task (src/a2a/confirm-target.ts):
 * the first JSON-RPC or HTTP+JSON interface of the card under the agent's mount path, in its
 * version, and the call the rescue's wire helpers then write for it. Pure.
 */
import { describe, expect, it } from 'vitest';
import { confirmSend, confirmTarget } from '../../src/a2a/confirm-target.js';
import { getTaskCall } from '../../src/a2a/rescue-wire.js';

const v1 = (...interfaces: Array<[string, string]>) => ({
  supportedInterfaces: interfaces.map(([protocolBinding, url]) => ({ url, protocolBinding, protocolVersion: '1.0' })),
});

describe('confirmTarget', () => {
  it('takes the first JSON-RPC or HTTP+JSON interface in card order, skipping gRPC', () => {
    const card = v1(
      ['GRPC', 'http://agent:50051'],
      ['HTTP+JSON', 'http://agent/a2a/rest'],
      ['JSONRPC', 'http://agent/a2a/jsonrpc'],
    );
    expect(confirmTarget(card, '')).toEqual({ binding: 'rest', version: '1.0', path: '/a2a/rest' });
  });

  it('reads a 0.3 card: its url with preferredTransport (JSON-RPC when absent), in version 0.3', () => {
    expect(confirmTarget({ protocolVersion: '0.3.0', url: 'http://agent/rpc/' }, '')).toEqual({
      binding: 'jsonrpc',
      version: '0.3',
      path: '/rpc',
    });
  });

  it('gives none for a gRPC-only card, or interfaces outside the mount path', () => {
    expect(confirmTarget(v1(['GRPC', 'http://agent:50051']), '')).toBeUndefined();
    expect(confirmTarget(v1(['JSONRPC', 'http://agent/elsewhere/rpc']), '/mounted')).toBeUndefined();
    expect(confirmTarget(v1(['JSONRPC', 'http://agent/mounted/rpc']), '/mounted/')).toMatchObject({
      path: '/mounted/rpc',
    });
    expect(confirmTarget('not a card', '')).toBeUndefined();
  });
});

describe('the GetTask for a target', () => {
  it('JSON-RPC 1.0: GetTask asking for no history; 0.3: tasks/get with one message (0 is unlimited there)', () => {
    const one = getTaskCall(confirmSend({ binding: 'jsonrpc', version: '1.0', path: '/a2a/jsonrpc' }), 't1');
    expect(one).toMatchObject({ method: 'POST', path: '/a2a/jsonrpc' });
    expect(JSON.parse(one.body!.toString())).toMatchObject({
      method: 'GetTask',
      params: { id: 't1', historyLength: 0 },
    });
    const old = getTaskCall(confirmSend({ binding: 'jsonrpc', version: '0.3', path: '' }), 't1');
    expect(old.path).toBe('/');
    expect(JSON.parse(old.body!.toString())).toMatchObject({
      method: 'tasks/get',
      params: { id: 't1', historyLength: 1 },
    });
  });

  it('HTTP+JSON: GET {interface}/tasks/{id}, under /v1 in 0.3', () => {
    expect(getTaskCall(confirmSend({ binding: 'rest', version: '1.0', path: '/a2a/rest' }), 't/1')).toEqual({
      method: 'GET',
      path: '/a2a/rest/tasks/t%2F1?historyLength=0',
    });
    expect(getTaskCall(confirmSend({ binding: 'rest', version: '0.3', path: '/rest' }), 't1').path).toBe(
      '/rest/v1/tasks/t1?historyLength=1',
    );
  });

  it('names the task’s tenant in 1.0 (JSON-RPC params, the REST path segment), not in 0.3', () => {
    const rpc = getTaskCall(confirmSend({ binding: 'jsonrpc', version: '1.0', path: '/rpc' }, 'acme'), 't1');
    expect(JSON.parse(rpc.body!.toString()).params).toEqual({ id: 't1', historyLength: 0, tenant: 'acme' });
    const rest = getTaskCall(confirmSend({ binding: 'rest', version: '1.0', path: '/a2a/rest' }, 'a b'), 't1');
    expect(rest.path).toBe('/a2a/rest/a%20b/tasks/t1?historyLength=0');
    const old = getTaskCall(confirmSend({ binding: 'jsonrpc', version: '0.3', path: '/rpc' }, 'acme'), 't1');
    expect(JSON.parse(old.body!.toString()).params).not.toHaveProperty('tenant');
  });
});
