/** `agents.{name}.tasks.confirm` (src/confirm/confirm.ts): off by default, with bounded periods and batches. */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { problems } from './problems.js';

const agent = (confirm: string) =>
  `agents:\n  a:\n    url: http://127.0.0.1:9101\n    tasks: { confirm: ${confirm} }\n`;

describe('agents.{name}.tasks.confirm', () => {
  it('is off by default, looking every 30 s at up to 10 tasks with a 10 s GetTask when on', () => {
    const config = parseConfig('agents:\n  a: { url: "http://127.0.0.1:9101" }\n', 'gw.yaml', {});
    expect(config.agents['a']!.tasks.confirm).toEqual({ enabled: false, interval: 30_000, batch: 10, timeout: 10_000 });
    const on = parseConfig(agent('{ enabled: true, interval: 2m, batch: 3 }'), 'gw.yaml', {});
    expect(on.agents['a']!.tasks.confirm).toMatchObject({ enabled: true, interval: 120_000, batch: 3 });
  });

  it('refuses an interval or timeout of none or 0, a batch out of 1..1000, and unknown keys', () => {
    expect(problems(agent('{ interval: none, timeout: 0, batch: 0, every: 1m }'))).toEqual([
      expect.stringMatching(/^agents\.a\.tasks\.confirm\.batch: /),
      expect.stringMatching(/^agents\.a\.tasks\.confirm\.every: unknown key/),
      expect.stringMatching(/^agents\.a\.tasks\.confirm\.interval: must be more than 0/),
      expect.stringMatching(/^agents\.a\.tasks\.confirm\.timeout: must be more than 0/),
    ]);
  });
});
