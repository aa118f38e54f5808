/** The `state` section: defaults, Redis settings, and the problems a bad one is refused with. */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { problems } from './problems.js';

const AGENTS = 'agents:\n  a: { url: "http://127.0.0.1:9" }\n';

describe('state config', () => {
  it('defaults to the in-memory store', () => {
    expect(parseConfig(AGENTS, 'gw.yaml', {}).state).toEqual({ store: 'memory' });
  });

  it('takes Redis settings, with safe defaults, and the URL from the environment', () => {
    const config = parseConfig(`state: { store: redis, redis: { url: "\${REDIS_URL}" } }\n${AGENTS}`, 'gw.yaml', {
      REDIS_URL: 'redis://redis:6379/0',
    });
    expect(config.state).toEqual({
      store: 'redis',
      redis: {
        url: 'redis://redis:6379/0',
        keyPrefix: 'a2a-gateway:',
        timeout: 500,
        maxPending: 10_000,
        failClosed: true,
        required: false,
        ownerReadRetry: 25,
        censusLease: 60_000,
      },
    });
  });

  it.each([
    ['state: { store: redis }', 'state.redis: `store: redis` needs `redis: { url }`'],
    ['state: { store: redis, redis: { url: "http://x" } }', 'state.redis.url: must be a redis:// or rediss:// URL'],
    ['state: { store: etcd }', 'state.store: '],
    ['state: { store: redis, redis: { url: "redis://x", pool: 3 } }', 'state.redis.pool: unknown key'],
  ])('refuses %s', (yaml, problem) => {
    expect(problems(`${yaml}\n${AGENTS}`).join('\n')).toContain(problem);
  });
});
