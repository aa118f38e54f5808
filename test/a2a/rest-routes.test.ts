import { describe, expect, it } from 'vitest';
import { matchRestRoute, tenantFromPrefix } from '../../src/a2a/rest-routes.js';

describe('REST routes matched by their tail (wire-reference §1 table, §6.2)', () => {
  it.each([
    ['POST', '/a2a/rest/message:send', { operation: 'SendMessage', prefix: '/a2a/rest', legacyV1: false }],
    ['POST', '/message:stream', { operation: 'SendStreamingMessage', prefix: '', legacyV1: false }],
    ['GET', '/x/tasks/t%201', { operation: 'GetTask', taskId: 't 1' }],
    ['GET', '/x/tasks', { operation: 'ListTasks', prefix: '/x' }],
    ['POST', '/x/tasks/t1:cancel', { operation: 'CancelTask', taskId: 't1' }],
    ['GET', '/x/tasks/t1:subscribe', { operation: 'SubscribeToTask', taskId: 't1' }],
    ['POST', '/x/tasks/t1:subscribe', { operation: 'SubscribeToTask', taskId: 't1' }],
    ['POST', '/x/tasks/t1/pushNotificationConfigs', { operation: 'CreateTaskPushNotificationConfig', taskId: 't1' }],
    ['GET', '/x/tasks/t1/pushNotificationConfigs', { operation: 'ListTaskPushNotificationConfigs', taskId: 't1' }],
    [
      'GET',
      '/x/tasks/t1/pushNotificationConfigs/c1',
      { operation: 'GetTaskPushNotificationConfig', taskId: 't1', configId: 'c1' },
    ],
    [
      'DELETE',
      '/x/tasks/t1/pushNotificationConfigs/c1',
      { operation: 'DeleteTaskPushNotificationConfig', configId: 'c1' },
    ],
    ['GET', '/x/extendedAgentCard', { operation: 'GetExtendedAgentCard', legacyV1: false }],
    ['GET', '/a2a/rest/v1/card', { operation: 'GetExtendedAgentCard', legacyV1: true, prefix: '/a2a/rest' }],
    ['POST', '/a2a/rest/v1/message:send', { operation: 'SendMessage', legacyV1: true, prefix: '/a2a/rest' }],
    ['GET', '/a2a/rest/v1/tasks/abc?historyLength=2', { operation: 'GetTask', legacyV1: true, taskId: 'abc' }],
    ['GET', '/.well-known/agent-card.json', { operation: 'AgentCard', prefix: '' }],
    ['GET', '/.well-known/agent.json', { operation: 'AgentCard' }],
    ['post', '/a/message:send', { operation: 'SendMessage' }],
  ])('%s %s', (method, path, expected) => {
    expect(matchRestRoute(method, path)).toMatchObject(expected);
  });

  it.each([
    ['GET', '/a2a/rest/message:send'],
    ['GET', '/x/tasks/t1:cancel'],
    ['DELETE', '/x/tasks/t1'],
    ['POST', '/x/tasks'],
    ['GET', '/a2a/rest/nope'],
    ['GET', '/a2a/jsonrpc'],
    ['GET', '/x/card'],
    ['POST', '/webhook'],
    ['GET', ''],
  ])('%s %s matches no route', (method, path) => {
    expect(matchRestRoute(method, path)).toBeUndefined();
  });

  it('keeps a malformed percent-escape as it is instead of throwing', () => {
    expect(matchRestRoute('GET', '/tasks/%E0%A4%A')).toMatchObject({ operation: 'GetTask', taskId: '%E0%A4%A' });
  });
});

describe('tenant segment (wire-reference §5.7)', () => {
  it('is the one segment between a known base path and the route', () => {
    expect(tenantFromPrefix('/a2a/rest/acme', ['/a2a/rest'])).toBe('acme');
    expect(tenantFromPrefix('/a2a/rest/acme', ['/a2a/rest/'])).toBe('acme');
    expect(tenantFromPrefix('/a2a/rest', ['/a2a/rest'])).toBeUndefined();
    expect(tenantFromPrefix('/a2a/rest/a/b', ['/a2a/rest'])).toBeUndefined();
    expect(tenantFromPrefix('/a2a/rest/acme', [])).toBeUndefined();
    expect(tenantFromPrefix('/t%20x', [''])).toBe('t x');
  });
});
