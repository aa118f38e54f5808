/** The gateway's logger: pino, JSON lines on stdout (or a file), level from config. */
import { pino } from 'pino';

export type Logger = pino.Logger;

/** Lines are written in batches of this size (fewer write calls on the forwarding path). It must
 * stay below sonic-boom's maxWrite (16 KiB): measured, a 64 KiB batch with a larger maxWrite made
 * each line cost ~200 µs instead of ~14 µs (the buffer is re-measured on every line). */
const BATCH_BYTES = 8 * 1024;
/** …and at least this often, so a quiet gateway's log is never stale for long. */
const FLUSH_EVERY_MS = 1000;

export function createLogger(level: string, destination: string | number = 1): Logger {
  // Asynchronous, batched writes: one access-log line per exchange must not cost a system call
  // each (measured: bench/RESULTS.md, "writev" dominates the profile). Flushed on shutdown.
  const stream = pino.destination({ dest: destination, sync: false, minLength: BATCH_BYTES });
  setInterval(() => stream.flush(), FLUSH_EVERY_MS).unref();
  // pino's own epoch-millisecond `time` (measured: an ISO timestamp costs ~4.5 µs a line).
  return pino({ level, base: undefined }, stream);
}
