/** A JSON resource read now and every `everyMs` (0: once; an empty path: not at all); the latest answer or error. */
import { useEffect, useState } from 'preact/hooks';
import { getJson, type Loaded } from './api.js';

export function usePoll<T>(path: string, everyMs: number): Loaded<T> | undefined {
  const [state, setState] = useState<Loaded<T> | undefined>(undefined);
  useEffect(() => {
    if (path === '') return;
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const tick = async () => {
      const loaded = await getJson<T>(path);
      if (!live) return;
      setState(loaded);
      if (everyMs > 0) timer = setTimeout(tick, everyMs);
    };
    void tick();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [path, everyMs]);
  return state;
}

/** What a view shows while a resource is missing: a visible, announced message. */
export function problem(loaded: Loaded<unknown> | undefined, what: string): string | undefined {
  if (loaded === undefined) return `Loading ${what}…`;
  if (loaded.error === undefined) return undefined;
  const again = / answered 401/.test(loaded.error) ? ' Reload the page to sign in again.' : '';
  return `The ${what} cannot be shown: ${loaded.error}.${again}`;
}
