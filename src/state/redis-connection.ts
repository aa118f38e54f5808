/**
 * The one ioredis connection a gateway process shares for its state (task store and rate
 * limits). Set up to never hold traffic: no offline queue (a command while Redis is down fails
 * at once instead of waiting for a reconnect), a timeout on every command, reconnects with a
 * capped backoff for as long as the process runs.
 */
import { Redis } from 'ioredis';
import type { RedisStateConfig } from '../config/state-schema.js';
import type { StoreStatus } from './store-status.js';

export function connectRedis(config: RedisStateConfig, status: StoreStatus): Redis {
  const client = new Redis(config.url, {
    enableOfflineQueue: false,
    commandTimeout: config.timeout > 0 ? config.timeout : undefined,
    connectTimeout: Math.max(1000, config.timeout * 4),
    maxRetriesPerRequest: 0,
    retryStrategy: (attempt) => Math.min(100 * 2 ** Math.min(attempt, 5), 2000),
  });
  client.on('ready', () => status.setUp(true));
  // Without an 'error' listener ioredis reports every failed reconnect as an unhandled error.
  client.on('error', (err: Error) => status.setUp(false, err.message));
  client.on('close', () => status.setUp(false, 'connection closed'));
  return client;
}
