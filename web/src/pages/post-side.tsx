import type { PostDetail } from '../api/types.ts';
import { Avatar } from '../components/avatar.tsx';
import { RatingBadge } from '../components/post-grid.tsx';
import { ago, bytes, count, duration, fullDate } from '../lib/format.ts';
import { TagLink } from '../components/tag-link.tsx';
import { byCategory, CATEGORY_LABEL } from '../lib/tag-categories.ts';
import { PostFamily, SourceLink } from './post-family.tsx';

/** Uploader, date, file details, source, the tags by category (each linking to its search and its page, with counts), parent and children. */
export function PostSide({ post }: { post: PostDetail }) {
  const profile = `/users/${encodeURIComponent(post.author.username)}`;
  return (
    <aside class="post-side" aria-label="Post details">
      <div class="uploader">
        {/* biome-ignore lint/a11y/useAnchorContent: the avatar repeats the name link beside it, hidden from assistive technology */}
        <a href={profile} tabIndex={-1} aria-hidden="true">
          <Avatar src={post.author.avatar} name={post.author.username} size={40} />
        </a>
        <div>
          <a href={profile} class="uploader-name">
            {post.author.username}
          </a>
          <div class="muted">
            <time dateTime={post.createdAt} title={fullDate(post.createdAt)}>
              {ago(post.createdAt)}
            </time>
          </div>
        </div>
      </div>
      <section aria-labelledby="tags-h">
        <h2 id="tags-h" class="panel-title">
          Tags
        </h2>
        {post.tags.length === 0 && <p class="muted">No tags yet.</p>}
        <div data-testid="post-tags">
          {byCategory(post.tagDetails).map(([category, tags]) => (
            <div key={category} class="tag-group" data-category={category}>
              <h3 class="tag-group-title">{CATEGORY_LABEL[category]}</h3>
              <ul class="tag-list">
                {tags.map((t) => (
                  <li key={t.name}>
                    <TagLink name={t.name} category={t.category} /> <span class="tag-count">{count(t.postsCount)}</span>
                  </li>
                ))}
              </ul>
            </div>
          ))}
        </div>
      </section>
      <section aria-labelledby="info-h">
        <h2 id="info-h" class="panel-title">
          Information
        </h2>
        <dl class="info">
          <dt>Rating</dt>
          <dd>
            <RatingBadge rating={post.contentRating} />
          </dd>
          <dt>Posted</dt>
          <dd>
            <time dateTime={post.createdAt}>{fullDate(post.createdAt)}</time>
          </dd>
          <dt>Size</dt>
          <dd>
            {post.width} × {post.height} · {bytes(post.fileSize)}
          </dd>
          <dt>Type</dt>
          <dd>
            {post.mime}
            {post.duration ? ` · ${duration(post.duration)}` : ''}
          </dd>
          {post.source && (
            <>
              <dt>Source</dt>
              <dd>
                <SourceLink source={post.source} />
              </dd>
            </>
          )}
        </dl>
      </section>
      <PostFamily post={post} />
    </aside>
  );
}
