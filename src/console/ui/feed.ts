/**
 * The live feed (/console/api/feed, server-sent events): exchanges as they finish, newest first,
 * at most `MAX_ROWS` kept. On `event: dropped` or an error it reconnects after a pause; while
 * paused, arriving exchanges are counted and kept aside, shown on resume. A busy gateway sends
 * at most `console.feed.maxRate` a second and counts the rest (`event: skipped`): shown as a sum.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { ExchangeSummary } from '../api-types.js';

export const MAX_ROWS = 500;
const RETRY_MS = 2000;

export interface Feed {
  readonly rows: readonly ExchangeSummary[];
  readonly status: string;
  readonly paused: boolean;
  readonly waiting: number;
  /** Exchanges the gateway did not send: past `console.feed.maxRate` a second (`event: skipped`). */
  readonly skipped: number;
  readonly setPaused: (paused: boolean) => void;
}

export function useFeed(): Feed {
  const [rows, setRows] = useState<readonly ExchangeSummary[]>([]);
  const [status, setStatus] = useState('connecting…');
  const [paused, setPausedState] = useState(false);
  const held = useRef<ExchangeSummary[]>([]);
  const pausedRef = useRef(false);
  const [waiting, setWaiting] = useState(0);
  const [skipped, setSkipped] = useState(0);
  useEffect(() => {
    let source: EventSource | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const reconnect = (why: string) => {
      source?.close();
      setStatus(`${why}; reconnecting in ${RETRY_MS / 1000} s`);
      timer = setTimeout(open, RETRY_MS);
    };
    const open = () => {
      source = new EventSource('/console/api/feed');
      source.onopen = () => setStatus('live');
      source.onerror = () => reconnect('the feed is unavailable');
      source.addEventListener('dropped', () => reconnect('the feed dropped this console (too slow)'));
      source.addEventListener('skipped', (event) => {
        const { count } = JSON.parse((event as MessageEvent<string>).data) as { count: number };
        setSkipped((n) => n + count);
      });
      source.addEventListener('exchange', (event) => {
        const row = JSON.parse((event as MessageEvent<string>).data) as ExchangeSummary;
        if (pausedRef.current) {
          held.current = [row, ...held.current].slice(0, MAX_ROWS);
          setWaiting(held.current.length);
        } else setRows((old) => [row, ...old].slice(0, MAX_ROWS));
      });
    };
    open();
    return () => {
      clearTimeout(timer);
      source?.close();
    };
  }, []);
  const setPaused = (next: boolean) => {
    pausedRef.current = next;
    setPausedState(next);
    if (!next && held.current.length) {
      const more = held.current;
      held.current = [];
      setWaiting(0);
      setRows((old) => [...more, ...old].slice(0, MAX_ROWS));
    }
  };
  return { rows, status, paused, waiting, skipped, setPaused };
}
