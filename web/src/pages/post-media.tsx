import { useState } from 'preact/hooks';
import type { PostDetail } from '../api/types.ts';

/** The image fitted to the screen (a click shows it at full size), or a video player. */
export function PostMedia({ post }: { post: PostDetail }) {
  const [full, setFull] = useState(false);
  const alt = post.tags.length ? `${post.title} (tags: ${post.tags.slice(0, 12).join(', ')})` : post.title;
  if (post.mediaType === 'video') {
    return (
      <div class="media">
        {/* biome-ignore lint/a11y/useMediaCaption: uploaded clips come without captions */}
        <video controls preload="metadata" poster={post.thumbnail} width={post.width} height={post.height} aria-label={`Video: ${post.title}`}>
          <source src={post.imageUrl} type={post.mime} />
          <a href={post.imageUrl}>Download the video</a>
        </video>
      </div>
    );
  }
  const fitted = post.previewUrl && post.mime !== 'image/gif' ? post.previewUrl : post.imageUrl;
  return (
    <div class={full ? 'media media-full' : 'media'}>
      <button
        type="button"
        class="media-toggle"
        onClick={() => setFull(!full)}
        aria-pressed={full}
        aria-label={full ? 'Fit the image to the screen' : `Show the image at full size (${post.width} × ${post.height})`}
      >
        <img src={full ? post.imageUrl : fitted} alt={alt} width={post.width} height={post.height} decoding="async" />
      </button>
    </div>
  );
}
