/**
 * `console`: the live console on the admin listener (docs/operations.md "Console"). The page and its data
 * are the operator plane's, behind `admin.token`; the feed's limits bound what a console that
 * stops reading can cost the gateway (it is dropped, never buffered without bound).
 */
import { z } from 'zod';
import { duration, size } from './fields.js';

export const consoleSchema = z
  .object({
    /** Serve the console at `/console/` on the admin listener. */
    enabled: z.boolean().default(true),
    /**
     * Where an exchange's trace id links to, `{traceId}` replaced: e.g.
     * `https://jaeger.example.com/trace/{traceId}`. Absent: trace ids are shown, not linked.
     */
    traceUrl: z
      .string()
      .refine((value) => /^https?:\/\/[^/]/.test(value) && value.includes('{traceId}'), {
        message: 'must be an http(s) URL containing {traceId}',
      })
      .optional(),
    feed: z
      .object({
        /** Consoles (live feeds) open at once; more are refused with 503. */
        maxClients: z.number().int().min(1).max(10_000).default(50),
        /** Bytes waiting for one console that does not read; past it, that console is dropped. */
        bufferBytes: size('256KiB'),
        /**
         * Exchanges per second the feed sends (to every console alike); past it, the rest of that
         * second is counted and sent as one `event: skipped`. No one reads faster, and the
         * consoles' bytes would otherwise take the cores traffic needs (bench `gateway+console`).
         */
        maxRate: z.number().int().min(1).max(100_000).default(200),
        /** An SSE comment when the feed has been quiet this long (keeps proxies from closing it). */
        keepalive: duration('15s'),
      })
      .strict()
      .prefault({}),
  })
  .strict()
  .prefault({});

export type ConsoleConfig = z.output<typeof consoleSchema>;
