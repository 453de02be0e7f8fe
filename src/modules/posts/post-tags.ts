import type { Transaction } from 'kysely';
import type { DB } from '../../db/types.ts';
import { movePostCounts } from '../../db/counters.ts';
import { aliasTargets } from '../tags/tag-aliases.repo.ts';
import type { TagInput } from '../tags/tag-name-rules.ts';
import { toTagString } from './tag-string.ts';

/**
 * The tags a write gives a post, by name: an alias name stands for its target, and a tag that does
 * not exist yet is created, in the category its prefix asked for (an existing tag keeps its own).
 * Every write path (upload, edit, a retag) comes through here.
 */
export async function tagsForWrite(trx: Transaction<DB>, input: TagInput, now: number): Promise<Map<string, number>> {
  const targets = await aliasTargets(trx, input.tags);
  const names = [...new Set(input.tags.map((n) => targets.get(n)?.name ?? n))].sort();
  if (names.length === 0) return new Map();
  // Sorted names: concurrent uploads and edits lock tags in one order.
  await trx
    .insertInto('tags')
    .values(names.map((name) => ({ name, post_count: 0, created_at: now, category: input.categories.get(name) ?? 'general' })))
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const rows = await trx.selectFrom('tags').select(['id', 'name']).where('name', 'in', names).execute();
  return new Map(rows.map((r) => [r.name, r.id]));
}

/**
 * Sets a post's tags to `wanted` (name -> id): links removed and added, the tags' post counts moved
 * and the post's tag string rewritten, in the caller's transaction (which holds the post's row).
 * The tag string's trigger logs the change (tag_changes), which the in-memory sets catch up from.
 */
export async function replacePostTags(trx: Transaction<DB>, postId: number, postCreatedAt: number, wanted: Map<string, number>): Promise<void> {
  const current = (await trx.selectFrom('post_tags').select('tag_id').where('post_id', '=', postId).execute()).map((t) => t.tag_id);
  const wantedIds = new Set(wanted.values());
  const removed = current.filter((id) => !wantedIds.has(id));
  const added = [...wantedIds].filter((id) => !current.includes(id));
  if (removed.length) await trx.deleteFrom('post_tags').where('post_id', '=', postId).where('tag_id', 'in', removed).execute();
  if (added.length) {
    await trx
      .insertInto('post_tags')
      .values(added.map((tag_id) => ({ post_id: postId, tag_id, created_at: postCreatedAt })))
      .execute();
  }
  await movePostCounts(trx, 'tags', new Map([...removed.map((t) => [t, -1] as const), ...added.map((t) => [t, 1] as const)]));
  await trx
    .updateTable('posts')
    .set({ tag_string: toTagString(wanted.keys()) })
    .where('id', '=', postId)
    .execute();
}
