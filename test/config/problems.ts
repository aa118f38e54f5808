/** The problems a config is rejected with (the test fails if it is accepted). */
import { expect } from 'vitest';
import { ConfigError, parseConfig } from '../../src/config/load.js';

export function problems(yaml: string, env: Record<string, string> = {}): string[] {
  try {
    parseConfig(yaml, 'gw.yaml', env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).problems;
  }
  throw new Error('expected the config to be rejected');
}
