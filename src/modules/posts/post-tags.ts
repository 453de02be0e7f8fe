import type { Database, Tx } from '../../db/engine.ts';
import { movePostCounts } from '../../db/counters.ts';
import { logTagsAdded, newestChange } from '../../db/queries/change-log.ts';
import { applyingImplications } from '../../db/locks.ts';
import { badRequest } from '../../core/errors.ts';
import { aliasTargets } from '../../db/queries/tag-names.ts';
import { impliedTags, implicationOnto, type TagRef } from '../tags/tag-implications.repo.ts';
import { MAX_TAGS_PER_POST, type TagInput } from '../tags/tag-name-rules.ts';
import { fromTagString, toTagString } from './tag-string.ts';
import { versioned } from './post-versions.ts';
import {
  deleteTagLinks,
  findTagsNamed,
  insertMissingTags,
  insertTagLinks,
  linksAmong,
  lockPostsToTag,
  setTagString,
  setTagStrings,
  type TagLink,
  tagIdsOfPost,
} from './post-tags.repo.ts';

/** The names a write asks for, each alias name read as its target, sorted. */
async function askedNames(trx: Tx, input: TagInput): Promise<string[]> {
  const targets = await aliasTargets(trx, input.tags);
  return [...new Set(input.tags.map((n) => targets.get(n)?.name ?? n))].sort();
}

/** `tags` (name -> id) with the implied tags added. */
function addImplied(tags: Map<string, number>, implied: TagRef[]): Map<string, number> {
  if (implied.every((t) => tags.has(t.name))) return tags;
  const out = new Map(tags);
  for (const t of implied) out.set(t.name, t.id);
  return out;
}

/**
 * Adds to `tags` (name -> id) every tag they imply, transitively. The implied tags exist: an
 * implication is made between tags (tag-implications.service.ts creates a missing one).
 */
export async function withImplied(trx: Tx, tags: Map<string, number>): Promise<Map<string, number>> {
  await applyingImplications(trx);
  return addImplied(tags, await impliedTags(trx, [...tags.values()]));
}

/**
 * The tags a write gives a post, by name: an alias name stands for its target, a tag that does
 * not exist yet is created, in the category its prefix asked for (an existing tag keeps its own),
 * and the tags these imply are added. Every write path (upload, edit, a retag) comes through here.
 * At most MAX_TAGS_PER_POST tags, not counting those the others imply (a 400 otherwise): the
 * server adds implied tags, so they must not push a post past the limit or make it uneditable.
 */
export async function tagsForWrite(trx: Tx, input: TagInput, now: number): Promise<Map<string, number>> {
  if (input.tags.length === 0) return new Map();
  await applyingImplications(trx);
  const names = await askedNames(trx, input);
  // Sorted names: concurrent uploads and edits lock tags in one order.
  await insertMissingTags(trx, names, now, input.categories);
  const rows = await findTagsNamed(trx, names);
  const implied = await impliedTags(
    trx,
    rows.map((r) => r.id),
  );
  const impliedNames = new Set(implied.map((t) => t.name));
  const own = names.filter((n) => !impliedNames.has(n)).length;
  if (own > MAX_TAGS_PER_POST) {
    const message = `at most ${MAX_TAGS_PER_POST} tags per post, not counting tags that others imply (got ${own})`;
    badRequest(`field 'tags': ${message}`, [{ field: 'tags', message }]);
  }
  return addImplied(new Map(rows.map((r) => [r.name, r.id])), implied);
}

/**
 * Refuses an edit that drops a tag the post has while a tag it keeps implies it (the implication
 * would put it straight back): a 400 naming the implication, e.g. "animal is implied by cat".
 * `input` is the edit's tag list, `tags` what tagsForWrite made of it.
 */
export async function refuseImpliedRemoval(trx: Tx, postId: number, input: TagInput, tags: Map<string, number>): Promise<void> {
  const asked = new Set(await askedNames(trx, input));
  const current = await tagIdsOfPost(trx, postId);
  const onlyImplied = new Set([...tags].filter(([name]) => !asked.has(name)).map(([, id]) => id));
  const dropped = current.map((t) => t.tag_id).filter((id) => onlyImplied.has(id));
  const why = await implicationOnto(trx, dropped, [...tags.values()]);
  if (why) {
    const message = `${why.to} is implied by ${why.from}; remove ${why.from} too, or keep ${why.to}`;
    badRequest(`field 'tags': ${message}`, [{ field: 'tags', message }]);
  }
}

/**
 * Sets a post's tags to `wanted` (name -> id, with what they imply: tagsForWrite or withImplied
 * made it): links removed and added, the tags' post counts moved and the post's tag string
 * rewritten, in the caller's transaction (which holds the post's row). The tag string's trigger
 * logs the change (tag_changes), which the in-memory sets catch up from.
 */
export async function replacePostTags(trx: Tx, postId: number, postCreatedAt: number, wanted: Map<string, number>): Promise<void> {
  const current = (await tagIdsOfPost(trx, postId)).map((t) => t.tag_id);
  const wantedIds = new Set(wanted.values());
  const removed = current.filter((id) => !wantedIds.has(id));
  const added = [...wantedIds].filter((id) => !current.includes(id));
  if (removed.length) await deleteTagLinks(trx, postId, removed);
  if (added.length) {
    await insertTagLinks(
      trx,
      added.map((tag_id) => ({ post_id: postId, tag_id, created_at: postCreatedAt })),
    );
  }
  await setTagString(trx, postId, toTagString(wanted.keys()));
  // After the post's update, which takes the commit-order lock: tags' rows come after it (db/locks.ts).
  await movePostCounts(trx, 'tags', new Map([...removed.map((t) => [t, -1] as const), ...added.map((t) => [t, 1] as const)]));
}

/**
 * Gives each of `postIds` the tags of `tags` (name -> id) it lacks: what replacePostTags does a
 * post at a time (links, counts, tag string and so the change log, updated_at), in a few
 * statements for the whole batch (its log entries say which links were added: logTagsAdded), for a job that adds the same tags to many posts (an
 * implication's backfill). Post by post, each post's half a dozen statements were most of such a
 * job's time, and of the time its process's requests waited for it. The posts' rows are locked
 * first, in id order (PostgreSQL; as an edit locks its post before its tags), and read after; a
 * post deleted meanwhile is skipped. Each post changed gets a version without an editor (the
 * system). Returns how many posts it changed.
 */
export async function addTagsToPosts(trx: Tx, db: Database, postIds: number[], tags: Map<string, number>, now: number): Promise<number> {
  if (postIds.length === 0 || tags.size === 0) return 0;
  const posts = await lockPostsToTag(db, trx, postIds);
  if (posts.length === 0) return 0;
  const have = await linksAmong(
    trx,
    posts.map((p) => p.id),
    [...tags.values()],
  );
  const had = new Set(have.map((r) => `${r.post_id}:${r.tag_id}`));
  const links: TagLink[] = [];
  const deltas = new Map<number, number>();
  const strings = new Map<number, string>();
  for (const p of posts) {
    const added = [...tags].filter(([, id]) => !had.has(`${p.id}:${id}`));
    if (added.length === 0) continue;
    for (const [, id] of added) {
      links.push({ post_id: p.id, tag_id: id, created_at: p.created_at });
      deltas.set(id, (deltas.get(id) ?? 0) + 1);
    }
    strings.set(p.id, toTagString([...fromTagString(p.tag_string), ...added.map(([name]) => name)]));
  }
  if (strings.size === 0) return 0;
  // A system change: each post gets a version without an editor.
  await versioned(trx, [...strings.keys()], null, now, () => writeAdded(trx, links, deltas, strings, now));
  return strings.size;
}

/** addTagsToPosts's writes: the links, the tag strings and updated_at, the change log of the links added, and the counts. */
async function writeAdded(trx: Tx, links: TagLink[], deltas: Map<number, number>, strings: Map<number, string>, now: number): Promise<void> {
  for (let at = 0; at < links.length; at += 500) await insertTagLinks(trx, links.slice(at, at + 500));
  const since = await newestChange(trx);
  await setTagStrings(trx, strings, now);
  await logTagsAdded(trx, since, links);
  // Last: the posts' update took the commit-order lock, which comes before tags' rows (db/locks.ts).
  await movePostCounts(trx, 'tags', deltas);
}
