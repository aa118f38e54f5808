/** Starts an in-process gateway for tests: both listeners (traffic and admin) on ephemeral
 * loopback ports, so test files running in parallel never share the default admin port 9464. */
import { parseConfig } from '../../src/config/load.js';
import { startGateway, type RunningGateway } from '../../src/gateway/gateway.js';
import type { ExchangeObserver } from '../../src/exchange/exchange.js';
import { pino, type Logger } from 'pino';

export interface TestAgent {
  url?: string;
  [key: string]: unknown;
}

/** `agents` as in the YAML config; other top-level keys may be given in `extra` (an `admin` there
 * replaces the default one: give its `listen` too). */
export async function startTestGateway(
  agents: Record<string, TestAgent>,
  extra: Record<string, unknown> = {},
  observers: ExchangeObserver[] = [],
  logger: Logger = pino({ level: 'silent' }),
): Promise<RunningGateway> {
  const config = parseConfig(
    JSON.stringify({
      listen: { host: '127.0.0.1', port: 0 },
      admin: { listen: { host: '127.0.0.1', port: 0 } },
      shutdown: { grace: '2s' },
      cards: { retry: '200ms' },
      ...extra,
      agents,
    }),
    'test-config',
    {},
  );
  return startGateway(config, { logger, observers });
}
