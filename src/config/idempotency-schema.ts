/**
 * Idempotent sends (docs/fleet.md "Idempotent sends"): per agent, a SendMessage whose
 * `Idempotency-Key` (else `messageId`) the same caller already sent within `window` gets the
 * first one's outcome instead of reaching the agent again. Off by default.
 */
import { z } from 'zod';
import { duration, size } from './fields.js';

export const agentIdempotencySchema = z
  .object({
    enabled: z.boolean().default(false),
    /** How long a send's outcome answers its duplicates (from the first send). */
    window: duration('10m'),
    /** Longest a duplicate waits for the first send's outcome; then 409 IDEMPOTENCY_IN_PROGRESS. */
    wait: duration('30s'),
    /** Most bytes of a Message answer kept to answer duplicates; a larger one is not kept (its duplicates reach the agent). */
    maxMessageBytes: size('64KiB'),
    /** Longest `Idempotency-Key` accepted; a longer one is refused (400). */
    maxKeyLength: z.number().int().min(1).max(4096).default(256),
    /** The store (Redis) cannot answer: refuse with 503 STATE_UNAVAILABLE; false sends to the agent. */
    failClosed: z.boolean().default(false),
  })
  .strict()
  .prefault({});

/** Gateway-wide: the in-memory store's bound in bytes (its entries are bounded by `tasks.maxTracked`). */
export const idempotencySchema = z
  .object({
    /** Most bytes of kept outcomes (Message answers and keys) the in-memory store holds; the oldest go first. */
    memoryBytes: size('32MiB'),
  })
  .strict()
  .prefault({});
