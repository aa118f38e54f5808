/** The gateway's logger: pino, JSON lines on stdout (or a file), level from config. */
import { pino } from 'pino';

export type Logger = pino.Logger;

export function createLogger(level: string, destination: string | number = 1): Logger {
  // Asynchronous writes: logging must not block the forwarding path. Flushed on shutdown.
  return pino({ level, base: undefined, timestamp: pino.stdTimeFunctions.isoTime }, pino.destination({ dest: destination, sync: false, minLength: 4096 }));
}
