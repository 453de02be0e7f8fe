import { tmpDirOf } from '../../config.ts';
import type { Deps, Viewer } from '../../core/deps.ts';
import { withMediaJournal } from '../../storage/media-journal.ts';
import { AppError, notFound } from '../../core/errors.ts';
import { assertOwnerOrModerator } from '../../core/policy.ts';
import { MAX_TAGS_PER_POST, normalizeTagName } from '../tags/tag-name-rules.ts';
import { movePostCounts } from '../../db/counters.ts';
import { deletePostRows } from './posts.delete.ts';
import { parseId } from '../../core/ids.ts';
import { getPost } from './posts.service.ts';
import type { PostPatch } from './posts.schemas.ts';
import { toTagString } from './tag-string.ts';

function tagNames(raw: string[] | string): string[] {
  const list = typeof raw === 'string' ? raw.split(',').filter((t) => t.trim() !== '') : raw;
  const out = new Set<string>();
  const problems: string[] = [];
  for (const t of list) {
    const r = normalizeTagName(t);
    if (r.ok) out.add(r.name);
    else problems.push(r.reason);
  }
  if (out.size > MAX_TAGS_PER_POST) problems.push(`at most ${MAX_TAGS_PER_POST} tags per post`);
  if (problems.length) throw new AppError(400, `field 'tags': ${problems.join('; ')}`, { details: problems.map((message) => ({ field: 'tags', message })) });
  return [...out];
}

/** Edits title, content, tags (the full new set) and rating; tag counts move in the same transaction. */
export async function editPost(deps: Deps, viewer: Viewer, rawId: string, patch: PostPatch) {
  const id = parseId(rawId, 'Post');
  const wanted = patch.tags === undefined ? undefined : tagNames(patch.tags);
  const title = patch.title?.trim();
  if (title === '') throw new AppError(400, "field 'title' must not be empty", { details: [{ field: 'title', message: 'must not be empty' }] });
  await deps.db.transaction().execute(async (trx) => {
    // Writing first locks the post's row (deletes and comments do the same), so the tag set read
    // below is current; a refused edit is rolled back with the transaction.
    const post = await trx
      .updateTable('posts')
      .set({
        updated_at: deps.clock.now(),
        ...(title !== undefined ? { title } : {}),
        ...(patch.content !== undefined ? { description: patch.content } : {}),
        ...(patch.contentRating !== undefined ? { content_rating: patch.contentRating } : {}),
      })
      .where('id', '=', id)
      .returning(['uploader_id', 'created_at'])
      .executeTakeFirst();
    if (!post) notFound('Post', rawId);
    assertOwnerOrModerator(viewer, post!.uploader_id, 'post');
    if (wanted === undefined) return;
    const current = await trx
      .selectFrom('post_tags')
      .innerJoin('tags', 'tags.id', 'post_tags.tag_id')
      .select(['tags.id', 'tags.name'])
      .where('post_tags.post_id', '=', id)
      .execute();
    const removed = current.filter((t) => !wanted.includes(t.name)).map((t) => t.id);
    const added = wanted.filter((n) => !current.some((t) => t.name === n)).sort();
    let addedIds: number[] = [];
    if (removed.length) await trx.deleteFrom('post_tags').where('post_id', '=', id).where('tag_id', 'in', removed).execute();
    if (added.length) {
      await trx
        .insertInto('tags')
        .values(added.map((name) => ({ name, post_count: 0, created_at: deps.clock.now() })))
        .onConflict((oc) => oc.column('name').doNothing())
        .execute();
      addedIds = (await trx.selectFrom('tags').select('id').where('name', 'in', added).execute()).map((t) => t.id);
      await trx
        .insertInto('post_tags')
        .values(addedIds.map((tag_id) => ({ post_id: id, tag_id, created_at: post!.created_at })))
        .execute();
    }
    await movePostCounts(trx, 'tags', new Map([...removed.map((t) => [t, -1] as const), ...addedIds.map((t) => [t, 1] as const)]));
    await trx
      .updateTable('posts')
      .set({ tag_string: toTagString(wanted) })
      .where('id', '=', id)
      .execute();
  });
  return getPost(deps, rawId, viewer);
}

/** Deletes a post (its uploader or a moderator), then its media files. */
export async function deletePost(deps: Deps, viewer: Viewer, rawId: string) {
  const id = parseId(rawId, 'Post');
  const post = await deps.db.selectFrom('posts').select(['uploader_id', 'file_path', 'thumb_path', 'preview_path']).where('id', '=', id).executeTakeFirst();
  if (!post) return notFound('Post', rawId);
  assertOwnerOrModerator(viewer, post.uploader_id, 'post');
  const paths = [post.file_path, post.thumb_path, post.preview_path].filter((p): p is string => Boolean(p));
  return withMediaJournal(tmpDirOf(deps.config), paths, async () => {
    const files = await deletePostRows(deps.db, id);
    if (files === null) return notFound('Post', rawId); // a concurrent delete got there first
    await Promise.all(files.map((f) => deps.media.delete(f)));
    return { message: `Post ${rawId} deleted` };
  });
}
