// The post page's History: asked for only when opened, newest version first, each with its
// editor, its time and what it changed from the one before; its uploader and the staff may
// revert the post to an older version (after a confirmation).
import { useState } from 'preact/hooks';
import { api, invalidate } from '../api/client.ts';
import type { PostDetail, PostHistory, PostVersion } from '../api/types.ts';
import { ErrorNote, Loading } from '../components/notice.tsx';
import { fullDate } from '../lib/format.ts';
import { diffVersions } from '../lib/post-diff.ts';
import { useSession } from '../lib/session.ts';
import { useApi } from '../lib/use-api.ts';
import { mayEdit } from './post-edit.tsx';

function Revert({ postId, version, onReverted }: { postId: string; version: number; onReverted(): void }) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error | null>(null);
  const revert = async () => {
    setBusy(true);
    setError(null);
    try {
      await api(`/api/posts/${encodeURIComponent(postId)}/revert`, { method: 'POST', json: { version } });
      // The post, its lists and this history all change.
      invalidate('/api/posts');
      onReverted();
    } catch (err) {
      setError(err as Error);
      setAsking(false);
      setBusy(false);
    }
  };
  return (
    <div class="version-tools">
      {asking ? (
        <span class="confirm">
          Give the post version {version}’s title, tags, rating, source and parent again?{' '}
          <button type="button" class="btn btn-primary btn-small" disabled={busy} onClick={revert}>
            Yes, revert
          </button>{' '}
          <button type="button" class="btn btn-ghost btn-small" onClick={() => setAsking(false)}>
            Cancel
          </button>
        </span>
      ) : (
        <button type="button" class="btn btn-ghost btn-small" onClick={() => setAsking(true)}>
          Revert to this version
        </button>
      )}
      <ErrorNote error={error} />
    </div>
  );
}

function Changes({ before, after }: { before: PostVersion | null; after: PostVersion }) {
  const { added, removed, changes } = diffVersions(before, after);
  if (!added.length && !removed.length && !changes.length) return <p class="muted">No change.</p>;
  return (
    <ul class="version-diff">
      {added.map((t) => (
        <li key={`+${t}`}>
          <ins class="diff-add">+{t}</ins>
        </li>
      ))}
      {removed.map((t) => (
        <li key={`-${t}`}>
          <del class="diff-del">-{t}</del>
        </li>
      ))}
      {changes.map((c) => (
        <li key={c.label} class="diff-field">
          {c.label}: {c.from !== null && `${c.from} → `}
          {c.to}
        </li>
      ))}
    </ul>
  );
}

function Versions({ post, onReverted }: { post: PostDetail; onReverted(): void }) {
  const { user } = useSession();
  const { data, error } = useApi<PostHistory>(`/api/posts/${encodeURIComponent(post.id)}/history`);
  if (error) return <ErrorNote error={error} />;
  if (!data) return <Loading label="Loading the history…" />;
  const oldestFirst = data.versions;
  const newest = oldestFirst.length - 1;
  return (
    <ol class="post-versions" data-testid="post-history" reversed>
      {oldestFirst
        .map((v, i) => (
          <li key={v.version} data-version={v.version}>
            <div class="version-head">
              <strong>Version {v.version}</strong>
              {i === newest && <span class="muted"> (current)</span>}{' '}
              <span class="muted">
                by {v.editor ? <a href={`/users/${encodeURIComponent(v.editor)}`}>{v.editor}</a> : 'the board'} ·{' '}
                <time dateTime={v.createdAt}>{fullDate(v.createdAt)}</time>
              </span>
            </div>
            <Changes before={oldestFirst[i - 1] ?? null} after={v} />
            {i !== newest && mayEdit(user, post) && <Revert postId={post.id} version={v.version} onReverted={onReverted} />}
          </li>
        ))
        .reverse()}
    </ol>
  );
}

/** A closed "History" that fetches the versions the first time it is opened, and again after each change of the post. */
export function PostHistorySection({ post, onReverted }: { post: PostDetail; onReverted(): void }) {
  const [open, setOpen] = useState(false);
  return (
    <details class="post-history" onToggle={(e) => setOpen((e.currentTarget as HTMLDetailsElement).open)}>
      <summary>History</summary>
      {open && <Versions key={post.updatedAt} post={post} onReverted={onReverted} />}
    </details>
  );
}
