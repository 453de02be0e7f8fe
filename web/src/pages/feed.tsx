// The feed: the posts that matched any of the member's saved searches, newest first. Opening it
// marks them seen (the header's count goes back to zero); the new ones are marked until then.
import { useEffect, useState } from 'preact/hooks';
import { api, invalidate, toQuery } from '../api/client.ts';
import type { Feed } from '../api/types.ts';
import { Empty, ErrorNote, Loading } from '../components/notice.tsx';
import { Pager } from '../components/pager.tsx';
import { PostGrid } from '../components/post-grid.tsx';
import { FEED_COUNT, feedSeen } from '../lib/feed.ts';
import { plural } from '../lib/format.ts';
import { useLoc } from '../lib/router.ts';
import { useSession } from '../lib/session.ts';
import { useApi, useTitle } from '../lib/use-api.ts';

const PAGE = 24;

export default function FeedPage() {
  useTitle('Feed');
  const { user } = useSession();
  const loc = useLoc();
  const page = Math.max(1, Number(loc.query.get('page')) || 1);
  const { data, error } = useApi<Feed>(user ? `/api/saved-searches/feed${toQuery({ offset: (page - 1) * PAGE || undefined, limit: PAGE })}` : null);
  // How many were new when the page opened: marked seen just after, the count shown stays.
  const [unseen, setUnseen] = useState<number | null>(null);
  useEffect(() => {
    if (!data || unseen !== null) return;
    setUnseen(data.unseen);
    if (data.unseen > 0)
      api('/api/saved-searches/feed/seen', { method: 'POST' }).then(() => {
        invalidate(FEED_COUNT);
        feedSeen.set(feedSeen.get() + 1);
      });
  }, [data]);
  if (!user) {
    return (
      <div class="page narrow">
        <h1>Feed</h1>
        <p>
          <a href="/login?next=/feed">Sign in</a> to follow saved searches.
        </p>
      </div>
    );
  }
  return (
    <div class="page">
      <div class="browse-head">
        <h1>Feed</h1>
        {data && (
          <span class="muted" data-testid="feed-total">
            {plural(data.total, 'post')}
            {unseen ? `, ${unseen} new` : ''}
          </span>
        )}
      </div>
      <p class="muted">
        New posts matching your <a href="/settings#saved-searches">saved searches</a>, newest first.
      </p>
      <ErrorNote error={error} />
      {!data && !error && <Loading label="Loading your feed…" />}
      {data && data.total === 0 && (
        <Empty>
          <p>
            <strong>Nothing yet.</strong> Save a search in <a href="/settings#saved-searches">Settings</a>: posts matching it arrive here as they are uploaded.
          </p>
        </Empty>
      )}
      {data && data.posts.length > 0 && <PostGrid posts={data.posts} />}
      {data && <Pager page={page} totalPages={Math.ceil(data.total / PAGE)} />}
    </div>
  );
}
