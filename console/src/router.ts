// Client-side routing under /console/ with the History API (the server answers index.html for any
// /console/<path> without a file extension): the current location, navigation without reload, and
// route patterns matched and filled. Which pages exist is the route table's (./routes.ts).
import { useEffect, useState } from 'preact/hooks';

/** Where the server mounts the console; every page's URL starts with it. */
export const BASE = '/console';

/** The address a page renders from: its path (with BASE) and its query (?clinica=&q=…). */
export interface Location {
  pathname: string;
  search: URLSearchParams;
}

/** A route's parameters by name (`:id` of `/leads/:id`), decoded. */
export type Params = Record<string, string>;

/** One segment of a pattern: a literal, or `:name` with an optional constraint (`:id(\d+)`). */
const PARAMETER = /^:(\w+)(?:\((.+)\))?$/;

/**
 * The parameters of `pathname` (with or without BASE) under `pattern` (`/leads/:id(\d+)`), or null
 * when it does not match. Empty segments are ignored (`/leads/` is `/leads`); a parameter matches one
 * non-empty segment (its constraint, when given, the whole segment) and is URI-decoded.
 */
export function matchPattern(pattern: string, pathname: string): Params | null {
  const path = pathname.startsWith(BASE) ? pathname.slice(BASE.length) : pathname;
  const parts = path.split('/').filter((part) => part !== '');
  const expected = pattern.split('/').filter((part) => part !== '');
  if (parts.length !== expected.length) return null;
  const params: Params = {};
  for (const [index, segment] of expected.entries()) {
    const part = parts[index]!;
    const parameter = PARAMETER.exec(segment);
    if (!parameter) {
      if (part !== segment) return null;
      continue;
    }
    const [, name, constraint] = parameter;
    if (constraint && !new RegExp(`^(?:${constraint})$`).test(part)) return null;
    params[name!] = decodeURIComponent(part);
  }
  return params;
}

/** The URL of `pattern` with `params` filled in (URI-encoded), under BASE, followed by `search` (`?…` or ''). */
export function fillPattern(pattern: string, params: Params, search = ''): string {
  const path = pattern.replace(/:(\w+)(?:\([^)]*\))?/g, (_match, name: string) => encodeURIComponent(params[name] ?? ''));
  return `${BASE}${path}${search}`;
}

const CHANGE = 'console:navigate';

/** Goes to `href` (same origin) without reloading; `replace` keeps the history length. */
export function navigate(href: string, replace = false): void {
  if (replace) history.replaceState(null, '', href);
  else history.pushState(null, '', href);
  window.dispatchEvent(new Event(CHANGE));
  if (!replace) window.scrollTo(0, 0);
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
