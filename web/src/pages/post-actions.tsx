import { useEffect, useState } from 'preact/hooks';
import { api, invalidate } from '../api/client.ts';
import type { FavoriteState, LikeState, PostDetail } from '../api/types.ts';
import { ErrorNote } from '../components/notice.tsx';
import { ReportButton } from '../components/report-button.tsx';
import { navigate } from '../lib/router.ts';
import { useSession } from '../lib/session.ts';

/** Like and favorite toggles with live counts (PUT to set, DELETE to clear). */
export function PostActions({ post }: { post: PostDetail }) {
  const { user } = useSession();
  const [like, setLike] = useState<LikeState>({ liked: !!post.liked, likes: post.stats.likes });
  const [fav, setFav] = useState<FavoriteState>({ favorited: !!post.favorited, favorites: post.stats.favorites });
  const [error, setError] = useState<Error | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    setLike({ liked: !!post.liked, likes: post.stats.likes });
    setFav({ favorited: !!post.favorited, favorites: post.stats.favorites });
  }, [post]);

  const toggle = async (kind: 'like' | 'favorite') => {
    if (!user) return navigate(`/login?next=${encodeURIComponent(location.pathname)}`);
    if (busy) return;
    setBusy(true);
    setError(null);
    const on = kind === 'like' ? like.liked : fav.favorited;
    try {
      const path = `/api/posts/${encodeURIComponent(post.id)}/${kind}`;
      if (kind === 'like') setLike(await api<LikeState>(path, { method: on ? 'DELETE' : 'PUT' }));
      else setFav(await api<FavoriteState>(path, { method: on ? 'DELETE' : 'PUT' }));
      invalidate(`/api/posts/${post.id}`);
      invalidate('/api/users/');
    } catch (err) {
      setError(err as Error);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div class="actions">
      <button type="button" class={like.liked ? 'btn toggle on' : 'btn toggle'} aria-pressed={like.liked} onClick={() => toggle('like')} data-testid="like">
        <span aria-hidden="true">{like.liked ? '♥' : '♡'}</span> {like.liked ? 'Liked' : 'Like'} <span class="num">{like.likes}</span>
      </button>
      <button
        type="button"
        class={fav.favorited ? 'btn toggle on' : 'btn toggle'}
        aria-pressed={fav.favorited}
        onClick={() => toggle('favorite')}
        data-testid="favorite"
      >
        <span aria-hidden="true">{fav.favorited ? '★' : '☆'}</span> {fav.favorited ? 'Favorited' : 'Favorite'} <span class="num">{fav.favorites}</span>
      </button>
      <a class="btn btn-ghost" href={post.imageUrl} target="_blank" rel="noopener">
        Original
      </a>
      <ReportButton target="post" id={post.id} />
      <ErrorNote error={error} />
    </div>
  );
}
