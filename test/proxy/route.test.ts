/** Routing decisions (src/pipeline/route.ts), pure: host routes from the config, hostnames of `Host`. */
import { describe, expect, it } from 'vitest';
import { agentForHost, hostnameOf, hostRoutes, resolvePathRoute } from '../../src/pipeline/route.js';

const routes = hostRoutes({
  reviewer: { hosts: ['code-reviewer.agents.example.com', 'localhost'] },
  billing: { hosts: ['::1'] },
  plain: { hosts: [] },
});

describe('hostRoutes', () => {
  it('maps every configured hostname to its agent', () => {
    expect([...routes]).toEqual([
      ['code-reviewer.agents.example.com', 'reviewer'],
      ['localhost', 'reviewer'],
      ['::1', 'billing'],
    ]);
  });
});

describe('hostnameOf', () => {
  it.each([
    ['localhost', 'localhost'],
    ['localhost:8080', 'localhost'],
    ['LOCALHOST.:8080', 'localhost'],
    ['Code-Reviewer.Agents.Example.COM.', 'code-reviewer.agents.example.com'],
    ['[::1]:8080', '::1'],
    ['[::1]', '::1'],
    ['127.0.0.1:80', '127.0.0.1'],
    ['[::1', ''],
  ])('%s → %s', (authority, hostname) => {
    expect(hostnameOf(authority)).toBe(hostname);
  });
});

describe('agentForHost', () => {
  it.each([
    ['code-reviewer.agents.example.com', 'reviewer'],
    ['code-reviewer.agents.example.com:443', 'reviewer'],
    ['LOCALHOST.:9', 'reviewer'],
    ['[::1]:8080', 'billing'],
  ])('routes %s to %s', (authority, agent) => {
    expect(agentForHost(routes, authority)).toBe(agent);
  });

  it.each([undefined, '', 'gateway.example.com', 'gateway.example.com:8080', 'example.com', 'localhost.example'])(
    'leaves %s to path routing',
    (authority) => {
      expect(agentForHost(routes, authority)).toBeUndefined();
    },
  );

  it('routes nothing when no agent has hosts', () => {
    expect(agentForHost(hostRoutes({ a: { hosts: [] } }), 'localhost')).toBeUndefined();
  });
});

describe('resolvePathRoute', () => {
  it('is unchanged: /agents/{name}/… and the rest', () => {
    expect(resolvePathRoute('/agents/a/x?q')).toEqual({ kind: 'agent', agent: 'a', rest: '/x?q' });
    expect(resolvePathRoute('/agents/a')).toEqual({ kind: 'agent-no-slash', agent: 'a' });
    expect(resolvePathRoute('/healthz')).toEqual({ kind: 'control' });
  });
});
