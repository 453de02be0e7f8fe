import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, invalidate, toQuery } from '../api/client.ts';
import type { PostList, TagCategory, TagDetail } from '../api/types.ts';
import { Empty, ErrorNote, Loading } from '../components/notice.tsx';
import { PostGrid } from '../components/post-grid.tsx';
import { fullDate, plural } from '../lib/format.ts';
import { navigate } from '../lib/router.ts';
import { useSafeMode, useSession } from '../lib/session.ts';
import { CATEGORY_LABEL, CATEGORY_ORDER, categoryClass } from '../lib/tag-categories.ts';
import { useApi, useTitle } from '../lib/use-api.ts';
import { TagHistoryList } from './tag-history.tsx';

/** A tag's page: category, count, description, aliases, implications both ways, and its newest posts; moderators edit it here. */
export default function TagPage({ name }: { name: string }) {
  const { data: tag, error, reload } = useApi<TagDetail>(`/api/tags/${encodeURIComponent(name)}`);
  const safe = useSafeMode();
  const { data: posts } = useApi<PostList>(tag ? `/api/posts${toQuery({ tag: tag.name, limit: 12, contentRating: safe ? 'safe' : undefined })}` : null);
  useTitle(tag?.name ?? name);
  // An alias name answers its target: the address follows the tag's own name.
  useEffect(() => {
    if (tag && tag.name !== name) navigate(`/tags/${encodeURIComponent(tag.name)}`, { replace: true });
  }, [tag?.name]);
  if (error) {
    return (
      <div class="page narrow">
        <h1>{error instanceof ApiError && error.status === 404 ? 'Tag not found' : 'Could not load this tag'}</h1>
        <ErrorNote error={error} />
        <p>
          <a href="/tags">All tags</a>
        </p>
      </div>
    );
  }
  if (!tag)
    return (
      <div class="page">
        <Loading />
      </div>
    );
  const link = (n: string) => (
    <a key={n} href={`/tags/${encodeURIComponent(n)}`}>
      {n}
    </a>
  );
  const list = (names: string[]) => (names.length ? names.map((n, i) => [i > 0 && ', ', link(n)]) : <span class="muted">none</span>);
  return (
    <div class="page">
      <p class="crumbs">
        <a href="/tags">Tags</a> /
      </p>
      <div class="browse-head">
        <h1 class={categoryClass(tag.category)} data-testid="tag-name">
          {tag.name}
        </h1>
        <span class="muted">
          {CATEGORY_LABEL[tag.category]} · {plural(tag.postsCount, 'post')}
        </span>
      </div>
      {tag.description ? (
        <p class="description" data-testid="tag-description">
          {tag.description}
        </p>
      ) : (
        <p class="muted">No description yet.</p>
      )}
      <dl class="info tag-relations">
        <dt>Other names</dt>
        <dd data-testid="tag-aliases">{list(tag.aliases)}</dd>
        <dt>Implies</dt>
        <dd data-testid="tag-implies">{list(tag.implies)}</dd>
        <dt>Implied by</dt>
        <dd data-testid="tag-implied-by">{list(tag.impliedBy)}</dd>
        <dt>Created</dt>
        <dd>{fullDate(tag.createdAt)}</dd>
      </dl>
      <TagEdit tag={tag} onSaved={reload} />
      <div class="browse-head">
        <h2>Newest posts</h2>
        <a href={`/?tag=${encodeURIComponent(tag.name)}`}>All {plural(tag.postsCount, 'post')}</a>
      </div>
      {!posts && <Loading />}
      {posts && posts.posts.length === 0 && (
        <Empty>
          <p>No posts{safe ? ' rated safe' : ''} with this tag.</p>
        </Empty>
      )}
      {posts && posts.posts.length > 0 && <PostGrid posts={posts.posts} small label={`Newest posts tagged ${tag.name}`} />}
      <TagHistoryList key={`${tag.name}:${tag.category}:${tag.description.length}`} name={tag.name} />
    </div>
  );
}

/** Moderators: the tag's category and description. */
function TagEdit({ tag, onSaved }: { tag: TagDetail; onSaved(): void }) {
  const { user } = useSession();
  const [category, setCategory] = useState<TagCategory>(tag.category);
  const [description, setDescription] = useState(tag.description);
  const [error, setError] = useState<Error | null>(null);
  const [saved, setSaved] = useState(false);
  useEffect(() => {
    setCategory(tag.category);
    setDescription(tag.description);
  }, [tag.name, tag.category, tag.description]);
  if (!user || user.role === 'user') return null;
  const save = async (e: Event) => {
    e.preventDefault();
    setError(null);
    setSaved(false);
    try {
      await api(`/api/tags/${encodeURIComponent(tag.name)}`, { method: 'PATCH', json: { category, description } });
      invalidate('/api/tags');
      invalidate('/api/posts');
      setSaved(true);
      onSaved();
    } catch (err) {
      setError(err as Error);
    }
  };
  return (
    <form class="panel tag-edit" onSubmit={save} aria-label="Edit tag">
      <div class="field">
        <label for="tag-category">Category</label>
        <select id="tag-category" value={category} onChange={(e) => setCategory((e.target as HTMLSelectElement).value as TagCategory)}>
          {CATEGORY_ORDER.map((c) => (
            <option key={c} value={c}>
              {CATEGORY_LABEL[c]}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="tag-description">Description</label>
        <textarea
          id="tag-description"
          rows={4}
          maxLength={10_000}
          value={description}
          onInput={(e) => setDescription((e.target as HTMLTextAreaElement).value)}
        />
      </div>
      <ErrorNote error={error} />
      <button type="submit" class="btn btn-primary">
        Save
      </button>
      {saved && (
        <span class="muted" role="status">
          {' '}
          Saved.
        </span>
      )}
    </form>
  );
}
