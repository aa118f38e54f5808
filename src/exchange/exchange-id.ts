/**
 * Exchange ids: unique within this process, so the console can name one exchange
 * (`GET /console/api/exchanges/{id}`) and findings can point at the call that made them. A
 * counter in base36 behind a short random process prefix: the forwarding path pays one
 * increment and one small string, nothing heavier (no UUIDs, no crypto per call). Two
 * processes (cluster workers, restarts) draw different prefixes.
 */
import { randomBytes } from 'node:crypto';

const PREFIX = randomBytes(3).toString('hex');
let counter = 0;

export function nextExchangeId(): string {
  counter++;
  return `${PREFIX}-${counter.toString(36)}`;
}
