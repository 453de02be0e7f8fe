import { useEffect, useState } from 'preact/hooks';
import type { PostList, Status, TagList } from '../api/types.ts';
import { Empty, ErrorNote, Loading } from '../components/notice.tsx';
import { Pager } from '../components/pager.tsx';
import { PostGrid } from '../components/post-grid.tsx';
import { StatsPanel } from '../components/stats-panel.tsx';
import { count, plural } from '../lib/format.ts';
import { QueryFaultNote } from '../components/query-fault-note.tsx';
import { faultOf, queryFault, SEARCH_BOX_ID } from '../lib/query-fault.ts';
import { navigate, restoreScroll, useLoc, withQuery } from '../lib/router.ts';
import { useSafeMode, useSession } from '../lib/session.ts';
import { type Loaded, useApi, useTitle } from '../lib/use-api.ts';
import { BrowseFilters } from './browse-filters.tsx';
import { apiFilters, eventsUrl, newSeed, PAGE_SIZE, postsUrl, readBrowse, saveContext } from './browse-query.ts';
import { useEvents } from '../lib/use-events.ts';

function PopularTags() {
  // The same list the post page reads tag counts from: one request serves both.
  const { data } = useApi<TagList>('/api/tags?limit=200');
  if (!data?.tags.length) return null;
  return (
    <section class="panel" aria-labelledby="popular-h">
      <h2 id="popular-h" class="panel-title">
        Popular tags
      </h2>
      <ul class="tag-list">
        {data.tags.slice(0, 25).map((t) => (
          <li key={t._id}>
            <a href={`/?tag=${encodeURIComponent(t.name)}`}>{t.name}</a> <span class="tag-count">{count(t.postsCount)}</span>
          </li>
        ))}
      </ul>
      <a href="/tags" class="more">
        All tags →
      </a>
    </section>
  );
}

/** What the viewer's filters left out of this list (hiddenPosts), and where to change that. */
function HiddenNote({ hidden, member }: { hidden: number; member: boolean }) {
  if (hidden <= 0) return null;
  return member ? (
    <p class="hint" data-testid="hidden-note">
      {plural(hidden, 'post')} hidden by your filters. <a href="/settings#filters">Edit filters</a>
    </p>
  ) : (
    <p class="hint" data-testid="hidden-note">
      Visitors see safe posts only: {plural(hidden, 'post')} hidden. Choose a rating in the filters, or{' '}
      <a href={`/login?next=${encodeURIComponent(location.pathname + location.search)}`}>sign in</a> to see every rating.
    </p>
  );
}

function heading(q: string, tags: string[]): string {
  if (q && tags.length) return `“${q}” in ${tags.join(' + ')}`;
  if (q) return `Results for “${q}”`;
  if (tags.length) return tags.join(' + ');
  return 'Posts';
}

function NoMatch() {
  return (
    <Empty>
      <p>
        <strong>No posts match.</strong>
      </p>
      <p>
        Try fewer tags, another rating or a wider date range (<a href="/help/search">search syntax</a>). <a href="/">Show everything</a>
      </p>
    </Empty>
  );
}

function NoPostsYet() {
  return (
    <Empty>
      <p>
        <strong>No posts yet.</strong>
      </p>
      <p>
        Nobody has uploaded anything to this board so far. <a href="/upload">Upload</a> the first pictures or videos.
      </p>
    </Empty>
  );
}

/** What an empty list says; nothing while the board's count loads, rather than one message and then the other. */
function NothingNote({ askedCount, count }: { askedCount: boolean; count: Loaded<Status> }) {
  if (!askedCount || count.error) return <NoMatch />;
  if (!count.data) return null;
  return count.data.totalPosts === 0 ? <NoPostsYet /> : <NoMatch />;
}

export function Browse() {
  const loc = useLoc();
  const safe = useSafeMode();
  const { user } = useSession();
  const state = readBrowse(loc.query, safe);
  const filters = apiFilters(state);
  const offset = (state.page - 1) * PAGE_SIZE;
  // order:random without a seed would shuffle every page anew: pick one first, into the URL.
  const unseeded = state.order === 'random' && !state.seed;
  useEffect(() => {
    if (unseeded) navigate(withQuery({ seed: newSeed() }), { replace: true, keepScroll: true });
  }, [unseeded]);
  const { data, error, loading, reload } = useApi<PostList>(unseeded ? null : postsUrl(filters, offset, PAGE_SIZE));
  // The first page of the newest-first list says when posts it would show arrive (one click shows
  // them). A stream refuses order: (it has no order), so a query naming one is not followed.
  const newestFirst = state.sort === 'newest' && state.order === null;
  const live = !unseeded && offset === 0 && newestFirst ? eventsUrl(filters) : null;
  const [arrived, setArrived] = useState<string[]>([]);
  useEffect(() => setArrived([]), [live]);
  useEvents(live, { 'post.created': (p: { id: string }) => setArrived((a) => (a.includes(p.id) ? a : [...a, p.id])) });
  const fresh = arrived.filter((id) => !data?.posts.some((p) => p.id === id));
  useTitle(state.q || state.tags.length ? heading(state.q, state.tags) : undefined);
  // A search the server could not read: shown here, and the search box marks itself.
  const fault = faultOf(error, state.q.trim());
  useEffect(() => queryFault.set(fault), [error, state.q]);
  useEffect(() => () => queryFault.set(null), []);

  // An empty list with nothing to narrow it may still be a filter at work (the safe-only view of a
  // board of unsafe posts): the board's own count tells an empty board apart.
  const unfiltered = !state.q.trim() && !state.tags.length && !state.likes && !state.from && !state.to && !loc.query.get('rating');
  const askCount = !!data && data.posts.length === 0 && data.hiddenPosts === 0 && unfiltered;
  const count = useApi<Status>(askCount ? '/api/public/status' : null);

  useEffect(() => {
    if (!data) return;
    saveContext({ filters, offset, ids: data.posts.map((p) => p.id) });
    if (loc.kind === 'pop') restoreScroll();
  }, [data]);

  return (
    <div class="browse">
      <div class="browse-main">
        <div class="browse-head">
          <h1>{heading(state.q, state.tags)}</h1>
          {data && (
            <span class="muted" data-testid="total">
              {plural(data.totalPosts, 'post')}
            </span>
          )}
        </div>
        {state.tags.length > 0 && (
          <ul class="chips" aria-label="Tag filters">
            {state.tags.map((t) => (
              <li key={t}>
                <a class="chip" href={withQuery({ tag: state.tags.filter((x) => x !== t), page: undefined })} aria-label={`Remove tag filter ${t}`}>
                  {t} <span aria-hidden="true">×</span>
                </a>
              </li>
            ))}
          </ul>
        )}
        <BrowseFilters state={state} />
        {state.rating === 'safe' && !loc.query.get('rating') && (
          <p class="hint">
            Safe mode: showing posts rated safe. <a href={withQuery({ rating: 'all', page: undefined })}>Show all ratings</a>
          </p>
        )}
        {data && <HiddenNote hidden={data.hiddenPosts} member={!!user} />}
        {fault ? <QueryFaultNote boxId={SEARCH_BOX_ID} fault={fault} /> : <ErrorNote error={error} />}
        {loading && !data && <Loading label="Loading posts…" />}
        {data && data.posts.length === 0 && <NothingNote askedCount={askCount} count={count} />}
        {fresh.length > 0 && (
          <button
            type="button"
            class="new-posts"
            data-testid="new-posts"
            onClick={() => {
              setArrived([]);
              reload();
            }}
          >
            {plural(fresh.length, 'new post')}: show
          </button>
        )}
        {data && data.posts.length > 0 && <PostGrid posts={data.posts} />}
        {data && <Pager page={state.page} totalPages={data.totalPages} />}
      </div>
      <aside class="browse-side" aria-label="Tags and statistics">
        <PopularTags />
        <StatsPanel />
      </aside>
    </div>
  );
}
