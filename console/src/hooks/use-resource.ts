// Loads data for a page: re-runs when `deps` change, ignores answers that arrive after a newer
// load started or after the page is gone, and keeps the last data while reloading (no flicker
// on auto-refresh).
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

/** What useResource gives a page: the latest data and error, whether a load is under way, and a way to load again. */
export interface Resource<T> {
  data: T | null;
  error: unknown;
  loading: boolean;
  /** Loads again with the same inputs. */
  reload: () => void;
}

/** Loads with `load` now and whenever `deps` change; an answer that arrives after a newer load started, or after the page is gone, is ignored. Data is kept while reloading. */
export function useResource<T>(load: () => Promise<T>, deps: unknown[]): Resource<T> {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(true);
  const [round, setRound] = useState(0);
  const latest = useRef(0);

  useEffect(() => {
    const ticket = ++latest.current;
    setLoading(true);
    load().then(
      (value) => {
        if (ticket !== latest.current) return;
        setData(value);
        setError(null);
        setLoading(false);
      },
      (failure: unknown) => {
        if (ticket !== latest.current) return;
        setError(failure);
        setLoading(false);
      },
    );
  }, [...deps, round]);

  useEffect(
    () => () => {
      latest.current = -1;
    },
    [],
  );

  const reload = useCallback(() => setRound((n) => n + 1), []);
  return { data, error, loading, reload };
}
