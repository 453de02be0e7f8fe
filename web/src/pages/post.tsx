import { useEffect, useState } from 'preact/hooks';
import { ApiError } from '../api/client.ts';
import type { PostDetail, SimilarList } from '../api/types.ts';
import { ErrorNote, Loading } from '../components/notice.tsx';
import { PostGrid } from '../components/post-grid.tsx';
import { setSafeMode, useSafeMode, useSession } from '../lib/session.ts';
import { useApi, useTitle } from '../lib/use-api.ts';
import { useSettled } from '../lib/use-settled.ts';
import { Comments } from './comments.tsx';
import { PostActions } from './post-actions.tsx';
import { PostEdit } from './post-edit.tsx';
import { PostHistorySection } from './post-history.tsx';
import { PostMedia } from './post-media.tsx';
import { useArrowKeys, usePost } from './post-nav.ts';
import { PostSide } from './post-side.tsx';

function Similar({ id, safe }: { id: string; safe: boolean }) {
  const { data } = useApi<SimilarList>(`/api/posts/${encodeURIComponent(id)}/similar?limit=12`);
  if (!data?.posts.length) return null;
  return (
    <section class="similar" aria-labelledby="similar-h">
      <h2 id="similar-h">Similar images</h2>
      <PostGrid posts={data.posts} hideUnsafe={safe} small label="Similar images" />
    </section>
  );
}

function SafeGate({ post, onShow }: { post: PostDetail; onShow(): void }) {
  return (
    <div class="gate" role="note">
      <p>
        <strong>This post is rated {post.contentRating}.</strong> Safe mode is on, so it is not shown.
      </p>
      <div class="row">
        <button type="button" class="btn" onClick={onShow}>
          Show it this time
        </button>
        <button type="button" class="btn btn-ghost" onClick={() => setSafeMode(false)}>
          Turn safe mode off
        </button>
      </div>
    </div>
  );
}

/** A post waiting for approval: only its uploader and the moderators get it, so it says who else cannot see it yet. */
function PendingNotice() {
  const { user } = useSession();
  const staff = user && user.role !== 'user';
  return (
    <div class="notice pending-notice" role="note" data-testid="pending-notice">
      <p>
        <strong>Pending approval.</strong> Only its uploader and the moderators see this post until a moderator approves it; likes, favourites, comments and
        edits wait until then.
        {staff && (
          <>
            {' '}
            <a href="/moderation?tab=pending">Review it in the pending queue</a>.
          </>
        )}
      </p>
    </div>
  );
}

export default function PostPage({ id }: { id: string }) {
  const safe = useSafeMode();
  const { data: post, error, loading, reload, neighbours: nav } = usePost(id, safe);
  const [shown, setShown] = useState(false);
  const settled = useSettled(id);
  useArrowKeys(nav);
  useTitle(post?.title ?? (error ? 'Post not found' : undefined));
  useEffect(() => setShown(false), [id]);

  if (error) {
    const missing = error instanceof ApiError && error.status === 404;
    return (
      <div class="page narrow">
        <h1>{missing ? 'Post not found' : 'Could not load this post'}</h1>
        <ErrorNote error={error} />
        <p>
          <a href="/">Back to the posts</a>
        </p>
      </div>
    );
  }
  if (loading || !post)
    return (
      <div class="page">
        <Loading label="Loading post…" />
      </div>
    );
  const gated = safe && post.contentRating !== 'safe' && !shown;
  return (
    <article class="post-page">
      <div class="post-main">
        {gated ? <SafeGate post={post} onShow={() => setShown(true)} /> : <PostMedia post={post} />}
        <div class="post-title-row">
          <h1 class="post-title">{post.title}</h1>
          <nav class="post-nav" aria-label="Neighbouring posts">
            {nav.prev ? (
              <a href={`/posts/${nav.prev}`} rel="prev" aria-keyshortcuts="ArrowLeft" class="btn btn-ghost">
                ← Previous
              </a>
            ) : (
              <span class="btn btn-ghost disabled" aria-hidden="true">
                ← Previous
              </span>
            )}
            {nav.next ? (
              <a href={`/posts/${nav.next}`} rel="next" aria-keyshortcuts="ArrowRight" class="btn btn-ghost">
                Next →
              </a>
            ) : (
              <span class="btn btn-ghost disabled" aria-hidden="true">
                Next →
              </span>
            )}
          </nav>
        </div>
        {post.pending && <PendingNotice />}
        {!post.pending && <PostActions post={post} />}
        {post.content && <p class="description">{post.content}</p>}
        {!post.pending && (
          <>
            {/* Keyed on the change: after a save or a revert the form starts from the post as it is now. */}
            <PostEdit key={`${post.id}@${post.updatedAt}`} post={post} onSaved={reload} />
            <PostHistorySection key={post.id} post={post} onReverted={reload} />
          </>
        )}
      </div>
      <PostSide post={post} />
      {!post.pending && (
        <div class="post-comments">
          <Comments postId={post.id} count={post.stats.comments} settled={settled} />
        </div>
      )}
      {settled && !post.pending && <Similar id={post.id} safe={safe} />}
    </article>
  );
}
