import { useEffect, useRef, useState } from 'preact/hooks';
import type { Feed } from '../api/types.ts';
import { useApi } from '../lib/use-api.ts';
import { useEvents } from '../lib/use-events.ts';
import { FEED_COUNT, feedSeen } from '../lib/feed.ts';
import { navigate, useLoc, withQuery } from '../lib/router.ts';
import { queryFault, SEARCH_BOX_ID } from '../lib/query-fault.ts';
import { setSafeMode, signOut, useSafeMode, useSession } from '../lib/session.ts';
import { useSignal } from '../lib/store.ts';
import { QueryInput } from './query-input.tsx';

const NAV = [
  ['/', 'Posts'],
  ['/tags', 'Tags'],
  ['/pools', 'Pools'],
  ['/upload', 'Upload'],
] as const;

function SearchForm() {
  const loc = useLoc();
  const onBrowse = loc.path === '/';
  const [q, setQ] = useState(onBrowse ? (loc.query.get('q') ?? '') : '');
  useEffect(() => {
    if (onBrowse) setQ(loc.query.get('q') ?? '');
  }, [loc]);
  const fault = useSignal(queryFault);
  const submit = (e: Event) => {
    e.preventDefault();
    const base = onBrowse ? loc : { ...loc, path: '/', query: new URLSearchParams() };
    // A new search gets a new shuffle if it asks for order:random (the browse page picks one).
    navigate(withQuery({ q: q.trim() || undefined, page: undefined, seed: undefined }, base));
  };
  return (
    <form class="search" role="search" onSubmit={submit}>
      <QueryInput
        id={SEARCH_BOX_ID}
        label="Search posts"
        value={q}
        onValue={setQ}
        placeholder="Tags, rating:safe, order:likes…"
        fault={onBrowse ? fault : null}
      />
      <button type="submit" class="btn btn-primary search-btn" aria-label="Search">
        <svg viewBox="0 0 20 20" width="16" height="16" aria-hidden="true">
          <path fill="currentColor" d="M8.5 3a5.5 5.5 0 0 1 4.38 8.83l3.65 3.64-1.06 1.06-3.64-3.65A5.5 5.5 0 1 1 8.5 3Zm0 1.5a4 4 0 1 0 0 8 4 4 0 0 0 0-8Z" />
        </svg>
      </button>
      <a href="/help/search" class="btn search-help" aria-label="Search syntax help" title="Search syntax">
        ?
      </a>
    </form>
  );
}

/**
 * A member's feed (posts matching their saved searches), with how many are new: read again on
 * every page change, and at once when a new post reaches the board (the live stream of every post).
 */
function FeedLink() {
  const loc = useLoc();
  const { data, reload } = useApi<Feed>(FEED_COUNT);
  const seen = useSignal(feedSeen);
  useEffect(() => reload(), [loc.path, loc.query.toString(), seen]);
  // Posts arriving together read the count once.
  const pending = useRef(false);
  useEvents('/api/events?q=', {
    'post.created': () => {
      if (pending.current) return;
      pending.current = true;
      setTimeout(() => {
        pending.current = false;
        reload();
      }, FEED_DELAY_MS);
    },
  });
  const unseen = data?.unseen ?? 0;
  return (
    <a href="/feed" class="btn btn-ghost feed-link" aria-current={loc.path === '/feed' ? 'page' : undefined} data-testid="feed-link">
      Feed
      {unseen > 0 && (
        <span class="badge" data-testid="feed-count">
          {unseen > 99 ? '99+' : unseen}
          <span class="sr-only"> new</span>
        </span>
      )}
    </a>
  );
}

/** A new post enters feeds in the board's next round (about a second): the count is read after it. */
const FEED_DELAY_MS = 2500;

function Account() {
  const { user, ready } = useSession();
  const loc = useLoc();
  if (!ready) return <span class="account" />;
  if (!user) {
    const next =
      loc.path === '/login' || loc.path === '/register' ? '' : `?next=${encodeURIComponent(loc.path + (loc.query.toString() ? `?${loc.query}` : ''))}`;
    return (
      <span class="account">
        <a href={`/login${next}`} class="btn btn-ghost">
          Sign in
        </a>
        <a href={`/register${next}`} class="btn btn-primary">
          Sign up
        </a>
      </span>
    );
  }
  return (
    <>
      <FeedLink />
      <details class="account menu">
        <summary aria-label={`Account menu for ${user.username}`}>
          <span class="menu-name">{user.username}</span> <span aria-hidden="true">▾</span>
        </summary>
        {/* biome-ignore lint/a11y/noStaticElementInteractions: closes the menu when one of its links is followed, by click or key */}
        {/* biome-ignore lint/a11y/useKeyWithClickEvents: the links inside take the keys */}
        <div class="menu-list" onClick={(e) => (e.currentTarget.parentElement as HTMLDetailsElement).removeAttribute('open')}>
          <a href={`/users/${encodeURIComponent(user.username)}`}>Your profile</a>
          <a href={`/users/${encodeURIComponent(user.username)}?tab=favorites`}>Favorites</a>
          <a href="/settings">Settings &amp; API keys</a>
          <button
            type="button"
            onClick={() =>
              signOut().then(
                () => navigate('/'),
                (err) => alert(err.message),
              )
            }
          >
            Sign out
          </button>
        </div>
      </details>
    </>
  );
}

export function Header() {
  const loc = useLoc();
  const safe = useSafeMode();
  const { user } = useSession();
  // Staff only: members never see the link (the page and the API refuse them anyway).
  const nav = user && user.role !== 'user' ? [...NAV, ['/moderation', 'Moderation'] as const] : NAV;
  return (
    <header class="top">
      <div class="top-inner">
        <a href="/" class="logo" aria-label="imageboard home">
          <svg viewBox="0 0 32 32" width="26" height="26" aria-hidden="true">
            <rect width="32" height="32" rx="7" fill="var(--accent)" />
            <rect x="7" y="7" width="8" height="8" rx="2" fill="#fff" />
            <rect x="17" y="7" width="8" height="8" rx="2" fill="#fff" opacity=".7" />
            <rect x="7" y="17" width="8" height="8" rx="2" fill="#fff" opacity=".7" />
            <rect x="17" y="17" width="8" height="8" rx="2" fill="#fff" />
          </svg>
          <span>imageboard</span>
        </a>
        <nav class="nav" aria-label="Main">
          {nav.map(([href, label]) => {
            const current = href === '/' ? loc.path === '/' || loc.path.startsWith('/posts') : loc.path.startsWith(href);
            return (
              <a key={href} href={href} aria-current={current ? 'page' : undefined}>
                {label}
              </a>
            );
          })}
        </nav>
        <SearchForm />
        <label class="switch" title="Show only posts rated safe">
          <input type="checkbox" checked={safe} onChange={(e) => setSafeMode((e.target as HTMLInputElement).checked)} />
          <span>Safe only</span>
        </label>
        <Account />
      </div>
    </header>
  );
}
