/**
 * Client-side routing on the path: the server answers index.html for every console page, the
 * page draws the view the path names. Links are real anchors (keyboard and middle-click work);
 * a plain click is turned into history.pushState.
 */
import { useEffect, useState } from 'preact/hooks';

export type Route =
  | { readonly view: 'fleet' }
  | { readonly view: 'live' }
  | { readonly view: 'findings' }
  | { readonly view: 'exchange'; readonly id: string }
  | { readonly view: 'task'; readonly agent: string; readonly taskId: string; readonly compare?: string }
  | { readonly view: 'missing'; readonly path: string };

const part = (text: string | undefined): string => decodeURIComponent(text ?? '');

export function routeOf(path: string, search: string): Route {
  const rest = path.replace(/^\/console\/?/, '');
  const [head, ...tail] = rest.split('/');
  if (rest === '') return { view: 'fleet' };
  if (head === 'live') return { view: 'live' };
  if (head === 'findings') return { view: 'findings' };
  if (head === 'exchanges' && tail.length === 1) return { view: 'exchange', id: part(tail[0]) };
  if (head === 'tasks' && tail.length === 2) {
    const compare = new URLSearchParams(search).get('compare') ?? undefined;
    return { view: 'task', agent: part(tail[0]), taskId: part(tail[1]), compare };
  }
  return { view: 'missing', path };
}

export function navigate(href: string): void {
  history.pushState(null, '', href);
  dispatchEvent(new PopStateEvent('popstate'));
}

/** A click on an internal link, without modifiers: route in the page. */
export function onLinkClick(event: MouseEvent): void {
  const anchor = (event.target as Element | null)?.closest?.('a');
  if (!anchor || event.defaultPrevented || event.button !== 0) return;
  if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  const href = anchor.getAttribute('href') ?? '';
  if (!href.startsWith('/console/') || href.startsWith('/console/api/') || href.startsWith('/console/session')) return;
  event.preventDefault();
  navigate(href);
}

export function useRoute(): Route {
  const read = () => routeOf(location.pathname, location.search);
  const [route, setRoute] = useState<Route>(read);
  useEffect(() => {
    const update = () => setRoute(read());
    addEventListener('popstate', update);
    return () => removeEventListener('popstate', update);
  }, []);
  return route;
}

export const taskHref = (agent: string, taskId: string): string =>
  `/console/tasks/${encodeURIComponent(agent)}/${encodeURIComponent(taskId)}`;
export const exchangeHref = (id: string): string => `/console/exchanges/${encodeURIComponent(id)}`;
