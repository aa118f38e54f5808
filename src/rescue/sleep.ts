/** The rescue's waits between polls (src/rescue/rescue.ts). */
import { setTimeout as delay } from 'node:timers/promises';

/** Resolves true after `ms`, or false as soon as `signal` aborts (the timer is cleared). */
export async function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  try {
    await delay(ms, undefined, { signal });
    return true;
  } catch (err) {
    if ((err as Error).name === 'AbortError') return false;
    throw err;
  }
}
