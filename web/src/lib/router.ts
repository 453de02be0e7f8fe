// A small history router: links are plain <a href> (clicks are intercepted once, in main.tsx),
// the URL is the state, and the scroll position is kept in history.state so Back returns to
// the same place in a list once its data is shown.
import { signal, useSignal } from './store.ts';

export interface Loc {
  path: string;
  query: URLSearchParams;
  /** How we got here: a new page, or Back/Forward (which restores the scroll position). */
  kind: 'push' | 'pop';
}

function read(kind: Loc['kind']): Loc {
  return { path: location.pathname.replace(/\/+$/, '') || '/', query: new URLSearchParams(location.search), kind };
}

export const loc = signal<Loc>(read('push'));
let savedScroll: number | null = null;

function rememberScroll(): void {
  history.replaceState({ ...(history.state ?? {}), scroll: window.scrollY }, '');
}

export function navigate(url: string, opts: { replace?: boolean; keepScroll?: boolean } = {}): void {
  if (opts.replace) history.replaceState({ scroll: opts.keepScroll ? window.scrollY : 0 }, '', url);
  else {
    rememberScroll();
    history.pushState({ scroll: 0 }, '', url);
  }
  savedScroll = null;
  loc.set(read('push'));
  if (!opts.keepScroll) window.scrollTo(0, 0);
}

export function startRouter(): void {
  history.scrollRestoration = 'manual';
  window.addEventListener('popstate', () => {
    savedScroll = typeof history.state?.scroll === 'number' ? history.state.scroll : 0;
    loc.set(read('pop'));
  });
  // Keep the position current, so a reload or a Back from another site lands in place too.
  let timer = 0;
  window.addEventListener(
    'scroll',
    () => {
      clearTimeout(timer);
      timer = window.setTimeout(rememberScroll, 150);
    },
    { passive: true },
  );
  document.addEventListener('click', (e) => {
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    const a = (e.target as Element).closest?.('a');
    if (!a || a.target || a.hasAttribute('download') || a.origin !== location.origin) return;
    if (/^\/(api|media|static|assets)(\/|$)/.test(a.pathname)) return;
    e.preventDefault();
    navigate(a.pathname + a.search + a.hash);
  });
}

/** Call when a page's content is on screen: after Back/Forward, scrolls to where the user was. */
export function restoreScroll(): void {
  if (savedScroll === null) return;
  const y = savedScroll;
  savedScroll = null;
  requestAnimationFrame(() => window.scrollTo(0, y));
}

export const useLoc = () => useSignal(loc);

/** Replaces some query parameters of the current URL (undefined or '' removes one). */
export function withQuery(changes: Record<string, string | string[] | undefined>, base = loc.get()): string {
  const q = new URLSearchParams(base.query);
  for (const [k, v] of Object.entries(changes)) {
    q.delete(k);
    if (Array.isArray(v)) v.forEach((x) => q.append(k, x));
    else if (v !== undefined && v !== '') q.set(k, v);
  }
  const s = q.toString();
  return base.path + (s ? `?${s}` : '');
}
