import { ApiError } from '../api/client.ts';
import type { PoolDetail } from '../api/types.ts';
import { Empty, ErrorNote, Loading } from '../components/notice.tsx';
import { PostGrid } from '../components/post-grid.tsx';
import { ago, plural } from '../lib/format.ts';
import { useSafeMode } from '../lib/session.ts';
import { useApi, useTitle } from '../lib/use-api.ts';

export default function PoolPage({ id }: { id: string }) {
  const { data, error } = useApi<PoolDetail>(`/api/pools/${encodeURIComponent(id)}`);
  const safe = useSafeMode();
  useTitle(data?.pool.name ?? 'Pool');
  if (error) {
    return (
      <div class="page narrow">
        <h1>{error instanceof ApiError && error.status === 404 ? 'Pool not found' : 'Could not load this pool'}</h1>
        <ErrorNote error={error} />
        <p>
          <a href="/pools">All pools</a>
        </p>
      </div>
    );
  }
  if (!data)
    return (
      <div class="page">
        <Loading />
      </div>
    );
  const { pool, posts } = data;
  return (
    <div class="page">
      <p class="crumbs">
        <a href="/pools">Pools</a> /
      </p>
      <div class="browse-head">
        <h1>{pool.name}</h1>
        <span class="muted">{plural(pool.postCount, 'post')}</span>
      </div>
      {pool.description && <p class="description">{pool.description}</p>}
      <p class="muted">
        By <a href={`/users/${encodeURIComponent(pool.creator.username)}`}>{pool.creator.username}</a> · updated {ago(pool.updatedAt)}
        {pool.isPublic ? '' : ' · private'}
      </p>
      {posts.length === 0 ? (
        <Empty>
          <p>This pool is empty.</p>
        </Empty>
      ) : (
        <PostGrid posts={posts} hideUnsafe={safe} label={`Posts in ${pool.name}`} />
      )}
    </div>
  );
}
