// Pages other than the browse page load on first visit, keeping the landing page's JS small.
import type { FunctionComponent } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ErrorNote, Loading } from './components/notice.tsx';

type Page = FunctionComponent<any>;

export function lazyPage(load: () => Promise<{ default: Page }>): Page {
  let loaded: Page | null = null;
  let pending: Promise<Page> | null = null;
  const get = () => (pending ??= load().then((m) => (loaded = m.default)));
  return function LazyPage(props) {
    const [, setReady] = useState(0);
    const [error, setError] = useState<Error | null>(null);
    useEffect(() => {
      if (!loaded)
        get().then(
          () => setReady(1),
          (err) => {
            pending = null;
            setError(err);
          },
        );
    }, []);
    if (loaded) {
      const C = loaded;
      return <C {...props} />;
    }
    if (error) return <ErrorNote error="This page could not be loaded. Check your connection and reload." />;
    return <Loading />;
  };
}
