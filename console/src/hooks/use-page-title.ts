// The browser tab's title for the page on screen.
import { useEffect } from 'preact/hooks';

/**
 * Sets `document.title` to `title` whenever it changes; null leaves the current title (a page whose
 * title names a record it has not loaded yet). Titles come from the route table (routes.ts) through
 * a page's `title` prop, or from t.titles for the sign-in page, which has no route.
 */
export function usePageTitle(title: string | null): void {
  useEffect(() => {
    if (title !== null) document.title = title;
  }, [title]);
}
