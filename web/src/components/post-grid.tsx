// The dense grid of thumbnails: justified rows (each tile grows in proportion to its aspect
// ratio, so a row shares one height), with the size reserved from the original's width and
// height before the lazy image arrives, so nothing jumps.
import type { PostItem } from '../api/types.ts';
import { count, fit } from '../lib/format.ts';

export function RatingBadge({ rating }: { rating: PostItem['contentRating'] }) {
  return <span class={`badge badge-${rating}`} title={`Rated ${rating}`}>{rating}</span>;
}

function Tile({ post, hidden }: { post: PostItem; hidden: boolean }) {
  const size = fit(post.width, post.height, 300);
  const ratio = size.width / size.height;
  const style = { flexGrow: ratio, flexBasis: `calc(var(--row) * ${ratio.toFixed(4)})`, aspectRatio: `${size.width} / ${size.height}` };
  const alt = post.tags.length ? `${post.title} (tags: ${post.tags.slice(0, 8).join(', ')})` : post.title;
  return (
    <li class="tile" style={style} data-post-id={post.id}>
      <a href={`/posts/${post.id}`} aria-label={`${post.title}, ${post.mediaType}, rated ${post.contentRating}, ${post.likes} likes`}>
        {hidden ? (
          <span class="tile-hidden">Rated {post.contentRating}: hidden in safe mode</span>
        ) : (
          <img src={post.thumbnail} alt={alt} width={size.width} height={size.height} loading="lazy" decoding="async" />
        )}
        <span class="tile-badges" aria-hidden="true">
          {post.mediaType === 'video' && <span class="badge badge-video">▶ video</span>}
          <RatingBadge rating={post.contentRating} />
        </span>
        <span class="tile-stats" aria-hidden="true">
          <span>♥ {count(post.likes)}</span>
          <span>★ {count(post.favorites)}</span>
          <span>💬 {count(post.comments)}</span>
        </span>
      </a>
    </li>
  );
}

/** `hideUnsafe`: show only a placeholder for posts not rated safe (lists the server cannot filter). */
export function PostGrid({ posts, hideUnsafe = false, label = 'Posts', small = false }: { posts: PostItem[]; hideUnsafe?: boolean; label?: string; small?: boolean }) {
  return (
    <ul class={small ? 'grid grid-small' : 'grid'} aria-label={label}>
      {posts.map((p) => <Tile key={p.id} post={p} hidden={hideUnsafe && p.contentRating !== 'safe'} />)}
    </ul>
  );
}
