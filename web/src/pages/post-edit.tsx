import { useState } from 'preact/hooks';
import { api, invalidate } from '../api/client.ts';
import { RATINGS, type PostDetail, type Rating, type User } from '../api/types.ts';
import { FamilyFields, onlyFamilyFields, parentValue } from '../components/family-fields.tsx';
import { ErrorNote } from '../components/notice.tsx';
import { TagInput } from '../components/tag-input.tsx';
import { navigate } from '../lib/router.ts';
import { useSession } from '../lib/session.ts';

/** Whether the viewer may change the post: its uploader, a moderator or an admin (the API's rule). */
export const mayEdit = (user: User | null, post: PostDetail): boolean => !!user && (user.username === post.author.username || user.role !== 'user');

/**
 * For the uploader (or a moderator): edit title, description, tags, rating, source and parent; delete.
 * Source and parent are sent only when changed, so an edit of the title never trips over them.
 */
export function PostEdit({ post, onSaved }: { post: PostDetail; onSaved(): void }) {
  const { user } = useSession();
  const [open, setOpen] = useState(false);
  const [title, setTitle] = useState(post.title);
  const [content, setContent] = useState(post.content);
  const [tags, setTags] = useState(post.tags.join(', '));
  const [rating, setRating] = useState<Rating>(post.contentRating);
  const [source, setSource] = useState(post.source ?? '');
  const [parent, setParent] = useState(post.parentId ?? '');
  const [error, setError] = useState<Error | null>(null);
  const [confirmDelete, setConfirmDelete] = useState(false);
  if (!mayEdit(user, post)) return null;

  const save = async (e: Event) => {
    e.preventDefault();
    setError(null);
    try {
      const list = tags
        .split(',')
        .map((t) => t.trim())
        .filter(Boolean);
      const json: Record<string, unknown> = { title, content, tags: list, contentRating: rating };
      if (source.trim() !== (post.source ?? '')) json.source = source.trim() || null;
      if (parentValue(parent) !== (post.parentId ?? '')) json.parentId = parentValue(parent) || null;
      await api(`/api/posts/${encodeURIComponent(post.id)}`, { method: 'PATCH', json });
      invalidate('/api/posts');
      setOpen(false);
      onSaved();
    } catch (err) {
      setError(err as Error);
    }
  };
  const remove = async () => {
    try {
      await api(`/api/posts/${encodeURIComponent(post.id)}`, { method: 'DELETE' });
      invalidate('/api/posts');
      navigate('/');
    } catch (err) {
      setError(err as Error);
    }
  };

  if (!open) {
    return (
      <div class="row owner-tools">
        <button type="button" class="btn btn-ghost btn-small" onClick={() => setOpen(true)}>
          Edit post
        </button>
        {!confirmDelete && (
          <button type="button" class="btn btn-ghost btn-small link-danger" onClick={() => setConfirmDelete(true)}>
            Delete post
          </button>
        )}
        {confirmDelete && (
          <span class="confirm">
            Delete this post for good?{' '}
            <button type="button" class="btn btn-danger btn-small" onClick={remove}>
              Delete
            </button>{' '}
            <button type="button" class="btn btn-ghost btn-small" onClick={() => setConfirmDelete(false)}>
              Keep
            </button>
          </span>
        )}
        <ErrorNote error={error} />
      </div>
    );
  }
  return (
    <form class="card stack" onSubmit={save} aria-label="Edit post">
      <div class="field">
        <label for="e-title">Title</label>
        <input id="e-title" value={title} maxLength={200} onInput={(e) => setTitle((e.target as HTMLInputElement).value)} />
      </div>
      <div class="field">
        <label for="e-content">Description</label>
        <textarea id="e-content" rows={3} value={content} onInput={(e) => setContent((e.target as HTMLTextAreaElement).value)} />
      </div>
      <TagInput id="e-tags" label="Tags (comma-separated)" separator="," value={tags} onValue={setTags} />
      <fieldset class="field">
        <legend>Rating</legend>
        <div class="row">
          {RATINGS.map((r) => (
            <label key={r} class="radio">
              <input type="radio" name="e-rating" value={r} checked={rating === r} onChange={() => setRating(r)} /> {r}
            </label>
          ))}
        </div>
      </fieldset>
      <FamilyFields prefix="e" source={source} parent={parent} onSource={setSource} onParent={setParent} error={error} />
      <div class="row">
        <button type="submit" class="btn btn-primary">
          Save
        </button>
        <button type="button" class="btn btn-ghost" onClick={() => setOpen(false)}>
          Cancel
        </button>
      </div>
      {!onlyFamilyFields(error) && <ErrorNote error={error} />}
    </form>
  );
}
