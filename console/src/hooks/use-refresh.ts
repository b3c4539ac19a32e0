// Polling for pages that show live data (the overview, the executions list).
import { useEffect } from 'preact/hooks';

/**
 * Calls `reload` every `everyMs` milliseconds while `enabled` and the tab is visible (a hidden tab
 * skips the tick, it does not queue it). Stops when the page goes, `enabled` turns false or `reload`
 * changes (a new timer starts for the new one). Pair with useResource's `reload`, which keeps the
 * last data while loading, so a refresh does not flicker.
 */
export function useRefresh(reload: () => void, everyMs: number, enabled = true): void {
  useEffect(() => {
    if (!enabled) return;
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') reload();
    }, everyMs);
    return () => clearInterval(timer);
  }, [reload, everyMs, enabled]);
}
