/**
 * Stream resume (docs/fleet.md "Stream resume"): per agent, the gateway gives each SSE event of a
 * SendStreamingMessage or SubscribeToTask stream an `id:` (gRPC: names the stream in its response
 * metadata and counts its messages) and keeps the latest events of each task's stream in a
 * bounded replay window, so a client that reconnects with `Last-Event-ID` gets the events it
 * missed and then the live ones. Off by default: a stream costs one boolean.
 * Per agent only (no gateway-wide default): whether a stream may be replayed, and for how long,
 * is a property of the agent's tasks, and every agent key here is per agent (idempotency, sse).
 */
import { z } from 'zod';
import { duration, size } from './fields.js';

export const agentResumeSchema = z
  .object({
    enabled: z.boolean().default(false),
    /** What one stream's window keeps; the oldest events go first. */
    window: z
      .object({
        /** Most events kept per stream. */
        events: z.number().int().min(1).max(100_000).default(256),
        /** Most event bytes kept per stream. */
        bytes: size('1MiB'),
        /** How long a window outlives its last event. */
        ttl: duration('10m'),
      })
      .strict()
      .prefault({}),
    /** The client left while the agent's stream is open: read it on (into the window) this long, then cancel. 0: cancel at once. */
    grace: duration('30s'),
    /** The window store (Redis) cannot be read for a resume: refuse with 503 STATE_UNAVAILABLE (false: the resume is answered as beyond the window). */
    failClosed: z.boolean().default(false),
  })
  .strict()
  .prefault({});

/** Gateway-wide: the in-memory windows' bound (`state.store: memory`). */
export const resumeSchema = z
  .object({
    /** Most streams whose windows are kept in memory; the least recently used go first. */
    memoryStreams: z.number().int().min(1).max(1_000_000).default(1000),
  })
  .strict()
  .prefault({});
