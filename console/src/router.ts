// Client-side routing under /console/ with the History API (the server answers index.html for any
// /console/<path> without a file extension). Routes:
//   /console/                     -> leads
//   /console/leads                -> leads (?clinica=&q=&page=)
//   /console/leads/:id            -> one lead
//   /console/executions           -> executions (?flow=&status=&version=)
//   /console/executions/:id       -> one execution
//   /console/flows                -> flows and the flows directory's load problems
//   /console/flows/:name          -> one flow's graph (?step= the selected step)
//   /console/overview             -> the overview (?clinica=&days=)
import { useEffect, useState } from 'preact/hooks';

export const BASE = '/console';

export type Route =
  | { name: 'leads' }
  | { name: 'lead'; id: number }
  | { name: 'executions' }
  | { name: 'execution'; id: string }
  | { name: 'flows' }
  | { name: 'flow'; flow: string }
  | { name: 'overview' }
  | { name: 'not-found' };

/** The route of a pathname (with or without the /console prefix). */
export function parseRoute(pathname: string): Route {
  const path = pathname.startsWith(BASE) ? pathname.slice(BASE.length) : pathname;
  const parts = path.split('/').filter((part) => part !== '');
  if (parts.length === 0 || (parts.length === 1 && parts[0] === 'leads')) return { name: 'leads' };
  if (parts.length === 2 && parts[0] === 'leads' && /^\d+$/.test(parts[1] ?? '')) return { name: 'lead', id: Number(parts[1]) };
  if (parts.length === 1 && parts[0] === 'executions') return { name: 'executions' };
  if (parts.length === 2 && parts[0] === 'executions' && parts[1]) return { name: 'execution', id: decodeURIComponent(parts[1]) };
  if (parts.length === 1 && parts[0] === 'flows') return { name: 'flows' };
  if (parts.length === 2 && parts[0] === 'flows' && parts[1]) return { name: 'flow', flow: decodeURIComponent(parts[1]) };
  if (parts.length === 1 && parts[0] === 'overview') return { name: 'overview' };
  return { name: 'not-found' };
}

/** URLs of the pages, for links. */
export const paths = {
  leads: (search = '') => `${BASE}/leads${search}`,
  lead: (id: number) => `${BASE}/leads/${id}`,
  executions: (search = '') => `${BASE}/executions${search}`,
  execution: (id: string) => `${BASE}/executions/${encodeURIComponent(id)}`,
  flows: () => `${BASE}/flows`,
  flow: (name: string, step?: string) => `${BASE}/flows/${encodeURIComponent(name)}${step ? `?step=${encodeURIComponent(step)}` : ''}`,
  overview: (search = '') => `${BASE}/overview${search}`,
};

const CHANGE = 'console:navigate';

/** Goes to `href` (same origin) without reloading; `replace` keeps the history length. */
export function navigate(href: string, replace = false): void {
  if (replace) history.replaceState(null, '', href);
  else history.pushState(null, '', href);
  window.dispatchEvent(new Event(CHANGE));
  if (!replace) window.scrollTo(0, 0);
}

export interface Location {
  pathname: string;
  search: URLSearchParams;
}

function current(): Location {
  return { pathname: location.pathname, search: new URLSearchParams(location.search) };
}

/** The current location, re-rendering on navigate() and on back/forward. */
export function useLocation(): Location {
  const [value, setValue] = useState(current);
  useEffect(() => {
    const update = () => setValue(current());
    window.addEventListener('popstate', update);
    window.addEventListener(CHANGE, update);
    return () => {
      window.removeEventListener('popstate', update);
      window.removeEventListener(CHANGE, update);
    };
  }, []);
  return value;
}

/** A click a link should handle itself: plain left click, no modifier (others open tabs etc.). */
export function isPlainClick(event: MouseEvent): boolean {
  return event.button === 0 && !event.metaKey && !event.ctrlKey && !event.shiftKey && !event.altKey && !event.defaultPrevented;
}
