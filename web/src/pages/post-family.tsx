// Where a post comes from and the posts around it: its source, its parent and its children.
import type { PostDetail } from '../api/types.ts';
import { useSafeMode } from '../lib/session.ts';
import { useApi } from '../lib/use-api.ts';

/** An http(s) source as a link that hands the other site neither this page nor ranking; anything else as plain text. */
export function SourceLink({ source }: { source: string }) {
  let web = false;
  try {
    web = ['http:', 'https:'].includes(new URL(source).protocol);
  } catch {
    web = false;
  }
  if (!web) return <span data-testid="post-source">{source}</span>;
  return (
    <a href={source} rel="noopener noreferrer nofollow" target="_blank" data-testid="post-source">
      {source}
    </a>
  );
}

/** The parent as a link with its thumbnail and title (one GET, cached); the thumbnail of a post not rated safe stays hidden in safe mode. */
function ParentLink({ id }: { id: string }) {
  const safe = useSafeMode();
  const { data } = useApi<PostDetail>(`/api/posts/${encodeURIComponent(id)}`);
  return (
    <a href={`/posts/${id}`} class="family-parent">
      {data && (!safe || data.contentRating === 'safe') && <img src={data.thumbnail} alt="" width={48} height={48} loading="lazy" />}
      <span>
        #{id}
        {data ? ` ${data.title}` : ''}
      </span>
    </a>
  );
}

/** "Parent" and "Children" of the post's side panel; nothing when it has neither. */
export function PostFamily({ post }: { post: PostDetail }) {
  if (!post.parentId && post.children.length === 0) return null;
  return (
    <section aria-labelledby="family-h">
      <h2 id="family-h" class="panel-title">
        Related posts
      </h2>
      <dl class="info">
        {post.parentId && (
          <>
            <dt>Parent</dt>
            <dd data-testid="post-parent">
              <ParentLink id={post.parentId} />
            </dd>
          </>
        )}
        {post.children.length > 0 && (
          <>
            <dt>Children</dt>
            <dd data-testid="post-children">
              <ul class="family-children">
                {post.children.map((c) => (
                  <li key={c}>
                    <a href={`/posts/${c}`}>#{c}</a>
                  </li>
                ))}
              </ul>
              {post.children.length > 1 && <a href={`/?q=${encodeURIComponent(`parent:${post.id}`)}`}>See them as a list</a>}
            </dd>
          </>
        )}
      </dl>
    </section>
  );
}
