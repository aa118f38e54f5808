// Every await in the peer/demo tests has its own deadline, well inside vitest's 30 s, so a
// hung stream fails with a message naming the step instead of a bare test timeout.

/** Request options that make an SDK call abort after `ms`. */
export function within(ms: number): { signal: AbortSignal } {
  return { signal: AbortSignal.timeout(ms) };
}

/** Rejects if `promise` does not settle within `ms`. */
export async function withDeadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`deadline: ${what} took more than ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Drains an event stream; rejects if it does not end within `ms`. */
export function collect<T>(stream: AsyncIterable<T>, ms: number, what: string): Promise<T[]> {
  const drain = async (): Promise<T[]> => {
    const out: T[] = [];
    for await (const ev of stream) out.push(ev);
    return out;
  };
  return withDeadline(drain(), ms, what);
}

/** Calls `probe` every `everyMs` until `done(value)`; rejects after `ms`. */
export async function pollUntil<T>(
  probe: () => Promise<T>,
  done: (v: T) => boolean,
  ms: number,
  what: string,
  everyMs = 25,
): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await withDeadline(probe(), Math.max(1, until - Date.now()), what);
    if (done(value)) return value;
    if (Date.now() >= until) throw new Error(`deadline: ${what} not reached within ${ms} ms`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
