// The dense grid of thumbnails: justified rows (each tile grows in proportion to its aspect
// ratio, so a row shares one height), with the size reserved from the original's width and
// height before the lazy image arrives, so nothing jumps.
import { useState } from 'preact/hooks';
import type { PostItem } from '../api/types.ts';
import { count, fit } from '../lib/format.ts';

export function RatingBadge({ rating }: { rating: PostItem['contentRating'] }) {
  return (
    <span class={`badge badge-${rating}`} title={`Rated ${rating}`}>
      {rating}
    </span>
  );
}

function Tile({ post }: { post: PostItem }) {
  const size = fit(post.width, post.height, 300);
  const ratio = size.width / size.height;
  const style = { flexGrow: ratio, flexBasis: `calc(var(--row) * ${ratio.toFixed(4)})`, aspectRatio: `${size.width} / ${size.height}` };
  const alt = post.tags.length ? `${post.title} (tags: ${post.tags.slice(0, 8).join(', ')})` : post.title;
  return (
    <li class="tile" style={style} data-post-id={post.id}>
      <a href={`/posts/${post.id}`} aria-label={`${post.title}, ${post.mediaType}, rated ${post.contentRating}, ${post.likes} likes`}>
        <img src={post.thumbnail} alt={alt} width={size.width} height={size.height} loading="lazy" decoding="async" />
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

/**
 * `hideUnsafe`: leave out posts not rated safe, saying how many, with a button to show them
 * (for lists the server cannot filter by rating: pools, favorites, similar images).
 */
export function PostGrid({
  posts,
  hideUnsafe = false,
  label = 'Posts',
  small = false,
}: {
  posts: PostItem[];
  hideUnsafe?: boolean;
  label?: string;
  small?: boolean;
}) {
  const [reveal, setReveal] = useState(false);
  const shown = hideUnsafe && !reveal ? posts.filter((p) => p.contentRating === 'safe') : posts;
  const hidden = posts.length - shown.length;
  return (
    <>
      <ul class={small ? 'grid grid-small' : 'grid'} aria-label={label}>
        {shown.map((p) => (
          <Tile key={p.id} post={p} />
        ))}
      </ul>
      {hidden > 0 && (
        <p class="hint">
          Safe mode hides {hidden} post{hidden === 1 ? '' : 's'} rated sketchy or unsafe here.{' '}
          <button type="button" class="link" onClick={() => setReveal(true)}>
            Show {hidden === 1 ? 'it' : 'them'}
          </button>
        </p>
      )}
    </>
  );
}
