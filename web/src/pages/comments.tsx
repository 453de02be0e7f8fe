// Threaded comments: the API gives a flat list (oldest first) with parentId; the tree is built
// here. Deep threads stop indenting at MAX_DEPTH so they stay readable on a phone.
import { useEffect, useState } from 'preact/hooks';
import { useEvents } from '../lib/use-events.ts';
import { api } from '../api/client.ts';
import type { Comment, CommentCreated, CommentList } from '../api/types.ts';
import { Avatar } from '../components/avatar.tsx';
import { ErrorNote, Loading } from '../components/notice.tsx';
import { ReportButton } from '../components/report-button.tsx';
import { ago, fullDate, plural } from '../lib/format.ts';
import { useSession } from '../lib/session.ts';

const MAX_DEPTH = 4;
const PER_PAGE = 100;
const MAX_PAGES = 20;

async function loadAll(postId: string): Promise<Comment[]> {
  const all: Comment[] = [];
  for (let page = 1; page <= MAX_PAGES; page++) {
    const r = await api<CommentList>(`/api/posts/${encodeURIComponent(postId)}/comments?page=${page}&limit=${PER_PAGE}`);
    all.push(...r.comments);
    if (page >= r.totalPages) break;
  }
  return all;
}

function CommentForm({
  postId,
  parentId,
  onDone,
  onCancel,
  autoFocus,
}: {
  postId: string;
  parentId: string | null;
  onDone(c: Comment): void;
  onCancel?(): void;
  autoFocus?: boolean;
}) {
  const [text, setText] = useState('');
  const [error, setError] = useState<Error | null>(null);
  const [busy, setBusy] = useState(false);
  const id = `comment-${parentId ?? 'new'}`;
  const submit = async (e: Event) => {
    e.preventDefault();
    if (!text.trim() || busy) return;
    setBusy(true);
    setError(null);
    try {
      const r = await api<CommentCreated>('/api/comments', { method: 'POST', json: { postId, content: text, parentId } });
      setText('');
      onDone(r.comment);
    } catch (err) {
      setError(err as Error);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="comment-form" onSubmit={submit}>
      <label for={id} class="sr-only">
        {parentId ? 'Your reply' : 'Your comment'}
      </label>
      <textarea
        id={id}
        rows={parentId ? 2 : 3}
        maxLength={5000}
        value={text}
        autoFocus={autoFocus}
        required
        placeholder={parentId ? 'Write a reply…' : 'Add a comment…'}
        onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
      />
      <div class="row">
        <button type="submit" class="btn btn-primary" disabled={busy || !text.trim()}>
          {parentId ? 'Reply' : 'Comment'}
        </button>
        {onCancel && (
          <button type="button" class="btn btn-ghost" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
      <ErrorNote error={error} />
    </form>
  );
}

interface NodeProps {
  c: Comment;
  kids: Map<string | null, Comment[]>;
  depth: number;
  postId: string;
  onAdd(c: Comment): void;
  onDeleted(): void;
}

function CommentNode({ c, kids, depth, postId, onAdd, onDeleted }: NodeProps) {
  const { user } = useSession();
  const [replying, setReplying] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState<Error | null>(null);
  const mayDelete = !!user && (user.username === c.author.username || user.role !== 'user');
  const remove = async () => {
    try {
      await api(`/api/comments/${encodeURIComponent(c.id)}`, { method: 'DELETE' });
      onDeleted();
    } catch (err) {
      setError(err as Error);
      setConfirming(false);
    }
  };
  const children = kids.get(c.id) ?? [];
  return (
    <li class="comment" id={`c${c.id}`} data-comment-id={c.id}>
      <div class="comment-head">
        <Avatar src={c.author.avatar} name={c.author.username} size={28} />
        <a href={`/users/${encodeURIComponent(c.author.username)}`} class="comment-author">
          {c.author.username}
        </a>
        <time class="muted" dateTime={c.createdAt} title={fullDate(c.createdAt)}>
          {ago(c.createdAt)}
        </time>
      </div>
      <p class="comment-body">{c.content}</p>
      <div class="comment-tools">
        {user && (
          <button type="button" class="link" onClick={() => setReplying(!replying)} aria-expanded={replying}>
            Reply
          </button>
        )}
        {mayDelete && !confirming && (
          <button type="button" class="link link-danger" onClick={() => setConfirming(true)}>
            Delete
          </button>
        )}
        {user && user.username !== c.author.username && <ReportButton target="comment" id={c.id} link />}
        {confirming && (
          <span class="confirm" role="group" aria-label="Confirm deletion">
            Delete this comment?{' '}
            <button type="button" class="btn btn-danger btn-small" onClick={remove}>
              Delete
            </button>{' '}
            <button type="button" class="btn btn-ghost btn-small" onClick={() => setConfirming(false)}>
              Keep
            </button>
          </span>
        )}
      </div>
      <ErrorNote error={error} />
      {replying && (
        <CommentForm
          postId={postId}
          parentId={c.id}
          autoFocus
          onCancel={() => setReplying(false)}
          onDone={(n) => {
            setReplying(false);
            onAdd(n);
          }}
        />
      )}
      {children.length > 0 && (
        <ul class={depth < MAX_DEPTH ? 'thread' : 'thread thread-flat'}>
          {children.map((k) => (
            <CommentNode key={k.id} c={k} kids={kids} depth={depth + 1} postId={postId} onAdd={onAdd} onDeleted={onDeleted} />
          ))}
        </ul>
      )}
    </li>
  );
}

/** The thread: read once the post has stayed on screen (`settled`), and never when it has none. */
export function Comments({ postId, count, settled }: { postId: string; count: number; settled: boolean }) {
  const { user } = useSession();
  const [list, setList] = useState<Comment[] | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const [nonce, setNonce] = useState(0);
  useEffect(() => {
    setList(count === 0 ? [] : null);
    setError(null);
  }, [postId]);
  useEffect(() => {
    // Only a change of post (or a delete, via nonce) reloads: comments added here stay as they are.
    if (!settled || (count === 0 && nonce === 0)) return;
    let live = true;
    loadAll(postId).then(
      (c) => live && setList(c),
      (err) => live && setError(err),
    );
    return () => {
      live = false;
    };
  }, [postId, nonce, settled]);

  const kids = new Map<string | null, Comment[]>();
  const ids = new Set(list?.map((c) => c.id));
  for (const c of list ?? []) {
    const parent = c.parentId && ids.has(c.parentId) ? c.parentId : null;
    kids.set(parent, [...(kids.get(parent) ?? []), c]);
  }
  // Each comment once: one posted here also comes back on the live stream.
  const add = (c: Comment) => setList((l) => (l?.some((x) => x.id === c.id) ? l : [...(l ?? []), c]));
  // Others' comments appear as they are made; a deletion (which takes its replies) reads the thread again.
  useEvents(settled ? `/api/events?post=${encodeURIComponent(postId)}` : null, {
    'comment.created': (c: Comment) => setList((l) => (l === null || l.some((x) => x.id === c.id) ? l : [...l, c])),
    'comment.deleted': () => setNonce((n) => n + 1),
  });
  return (
    <section class="comments" aria-labelledby="comments-h">
      <h2 id="comments-h">{list ? plural(list.length, 'comment') : 'Comments'}</h2>
      {user ? (
        <CommentForm postId={postId} parentId={null} onDone={add} />
      ) : (
        <p class="muted">
          <a href={`/login?next=${encodeURIComponent(location.pathname)}`}>Sign in</a> to comment.
        </p>
      )}
      <ErrorNote error={error} />
      {!list && !error && <Loading label="Loading comments…" />}
      {list && (
        <ul class="thread thread-root">
          {(kids.get(null) ?? []).map((c) => (
            <CommentNode key={c.id} c={c} kids={kids} depth={1} postId={postId} onAdd={add} onDeleted={() => setNonce((n) => n + 1)} />
          ))}
        </ul>
      )}
    </section>
  );
}
