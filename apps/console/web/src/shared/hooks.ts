import { useCallback, useEffect, useRef, useState } from 'react';

/** Loads data on mount and when `deps` change; `reload()` loads again; `set` patches it in place. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]) {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<Error | null>(null);
  const [loading, setLoading] = useState(true);
  const seq = useRef(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  const reload = useCallback(async () => {
    const mine = ++seq.current;
    setLoading(true);
    try {
      const value = await loadRef.current();
      if (mine === seq.current) {
        setData(value);
        setError(null);
      }
    } catch (e) {
      if (mine === seq.current) setError(e as Error);
    } finally {
      if (mine === seq.current) setLoading(false);
    }
  }, []);
  useEffect(() => {
    void reload();
  }, deps); // eslint-disable-line react-hooks/exhaustive-deps
  return { data, error, loading, reload, set: setData };
}

/** Calls `fn` every `ms` while mounted (and the tab is visible). */
export function useInterval(fn: () => void, ms: number): void {
  const ref = useRef(fn);
  useEffect(() => {
    ref.current = fn;
  });
  useEffect(() => {
    const id = setInterval(() => {
      if (document.visibilityState !== 'hidden') ref.current();
    }, ms);
    return () => clearInterval(id);
  }, [ms]);
}

/** Re-renders every `ms` (relative times). */
export function useNow(ms = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useInterval(() => setNow(Date.now()), ms);
  return now;
}
