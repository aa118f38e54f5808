/** The gateway's logger: pino, JSON lines on stdout (or a file), level from config. */
import { pino } from 'pino';

export type Logger = pino.Logger;

/** Lines are written in batches of this size (fewer write calls on the forwarding path). It must
 * stay below sonic-boom's maxWrite (16 KiB). */
const BATCH_BYTES = 8 * 1024;
/** …and at least this often, so a quiet gateway's log is never stale for long. */
const FLUSH_EVERY_MS = 1000;

/**
 * pino's lines into sonic-boom as bytes. In its default (string) mode sonic-boom appends each
 * line to the batch string and measures that whole string again with `Buffer.byteLength` on the
 * next line (sonic-boom 4.2.1, index.js `write`), which flattens up to 16 KiB per line: measured
 * 4–13 KB of garbage per access-log line, more than all of inspection (test/inspect/observer-bench.ts).
 * In buffer mode it keeps the lengths instead; pino writes strings, so each line is encoded here
 * once (its own size in garbage). pino needs only `write`, and `flush`/`flushSync` on shutdown.
 */
type Destination = ReturnType<typeof pino.destination>;

class LineBytes {
  constructor(private readonly boom: Destination) {}
  write(line: string): boolean {
    return this.boom.write(Buffer.from(line) as unknown as string);
  }
  flush(cb?: (err?: Error) => void): void {
    this.boom.flush(cb);
  }
  flushSync(): void {
    this.boom.flushSync();
  }
}

export function createLogger(level: string, destination: string | number = 1): Logger {
  // Asynchronous, batched writes: one access-log line per exchange must not cost a system call
  // each (measured: bench/RESULTS.md, "writev" dominates the profile). Flushed on shutdown.
  const boom = pino.destination({ dest: destination, sync: false, minLength: BATCH_BYTES, contentMode: 'buffer' });
  setInterval(() => boom.flush(), FLUSH_EVERY_MS).unref();
  // pino's own epoch-millisecond `time` (measured: an ISO timestamp costs ~4.5 µs a line).
  return pino({ level, base: undefined }, new LineBytes(boom));
}
