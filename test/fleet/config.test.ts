/** `agents.{name}.upstreams` (src/config/fleet-schema.ts): the forms, and what is refused with its key path. */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { problems } from '../config/problems.js';

const agent = (body: string) => `agents:\n  a:\n${body}`;

describe('agent replicas in the config', () => {
  it('makes `url` the one-replica form, without affinity', () => {
    const a = parseConfig(agent('    url: http://h:1/\n'), 'gw.yaml', {}).agents['a']!;
    expect(a.upstreams).toEqual([{ url: 'http://h:1', grpc: undefined, drain: false }]);
    expect(a.replicated).toBe(false);
    expect(a.affinity.failClosed).toBe(true);
  });

  it('takes URLs or objects in `upstreams`; the first is `url`; affinity applies', () => {
    const yaml = agent('    upstreams: [http://h:1/, { url: http://h:2, grpc: h:50051, drain: true }]\n');
    const a = parseConfig(yaml, 'gw.yaml', {}).agents['a']!;
    expect(a.url).toBe('http://h:1');
    expect(a.replicated).toBe(true);
    expect(a.upstreams).toEqual([
      { url: 'http://h:1', grpc: undefined, drain: false },
      { url: 'http://h:2', grpc: 'h:50051', drain: true },
    ]);
  });

  it('refuses neither, both, a duplicate, another base path and an empty list, naming the key', () => {
    expect(problems(agent('    cardPath: /card.json\n'))[0]).toMatch(/agents\.a\.upstreams: give the agent `url`/);
    expect(problems(agent('    url: http://h:1\n    upstreams: [http://h:2]\n'))[0]).toMatch(/not both/);
    expect(problems(agent('    upstreams: [http://h:1, http://h:1/]\n'))[0]).toMatch(
      /upstreams\[1\]: http:\/\/h:1 is listed twice/,
    );
    expect(problems(agent('    upstreams: [http://h:1/a, http://h:2/b]\n'))[0]).toMatch(
      /upstreams\[1\]: every replica must serve the same base path/,
    );
    expect(problems(agent('    upstreams: []\n'))[0]).toMatch(/agents\.a\.upstreams/);
    expect(problems(agent('    upstreams: [{ url: http://h:1, grpc: "h:1/x" }]\n'))[0]).toMatch(/upstreams\[0\]\.grpc/);
  });
});
