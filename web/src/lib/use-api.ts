import { useEffect, useState } from 'preact/hooks';
import { cached, getCached, invalidate } from '../api/client.ts';

export interface Loaded<T> {
  data: T | undefined;
  error: Error | undefined;
  loading: boolean;
  reload(): void;
}

/** GETs `path` (null: nothing yet), from the short cache when fresh so Back renders at once. */
export function useApi<T>(path: string | null): Loaded<T> {
  const [state, setState] = useState<{ path: string | null; data?: T; error?: Error }>(() => ({ path, data: path ? cached<T>(path) : undefined }));
  const [nonce, setNonce] = useState(0);
  useEffect(() => {
    if (!path) return;
    const hit = cached<T>(path);
    if (hit && nonce === 0) {
      setState({ path, data: hit });
      return;
    }
    const ctrl = new AbortController();
    setState((s) => ({ path, data: s.path === path ? s.data : undefined }));
    getCached<T>(path, ctrl.signal).then(
      (data) => setState({ path, data }),
      (error: Error) => {
        if (error.name !== 'AbortError') setState({ path, error });
      },
    );
    return () => ctrl.abort();
  }, [path, nonce]);
  const current = state.path === path;
  return {
    data: current ? state.data : undefined,
    error: current ? state.error : undefined,
    loading: !!path && (!current || (!state.data && !state.error)),
    reload: () => {
      if (path) invalidate(path);
      setNonce((n) => n + 1);
    },
  };
}

/** Sets document.title while the page is shown. */
export function useTitle(title: string | undefined): void {
  useEffect(() => {
    document.title = title ? `${title} · imageboard` : 'imageboard';
  }, [title]);
}

/** Forgets cached answers under `prefix` once, as the component mounts (before its first GET):
 * for staff lists, where a queue seen a minute ago may have changed. */
export function useFresh(prefix: string): void {
  useState(() => invalidate(prefix));
}
