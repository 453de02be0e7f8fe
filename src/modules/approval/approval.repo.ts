import { sql, type Kysely } from 'kysely';
import type { Database } from '../../db/engine.ts';
import type { DB, NewPost } from '../../db/types.ts';
import { applyingImplications } from '../../db/locks.ts';
import { PUBLISHED_CHANGE } from '../../db/schema/tag-changes.ts';
import type { TagInput } from '../tags/tag-name-rules.ts';
import type { TagCategory } from '../../core/tag-categories.ts';
import { insertPostTagged } from '../posts/posts.repo.ts';
import { tagsForWrite } from '../posts/post-tags.ts';
import { type AuditEntry, recordAudit } from '../moderation/audit.repo.ts';
import type { Actor } from '../../core/deps.ts';

/** The columns of an upload held for approval: a post's, but for its id (reserved) and tag string (made when published). */
export type HeldPost = Omit<NewPost, 'id' | 'tag_string'>;

/** A held upload as stored. */
export interface PendingRow {
  id: number;
  uploader_id: number;
  username: string;
  avatar_path: string | null;
  sha256: string;
  title: string;
  content_rating: string;
  thumb_path: string;
  tags: TagInput;
  post: HeldPost;
  created_at: number;
}

const tagsJson = (t: TagInput) => JSON.stringify({ tags: t.tags, categories: [...t.categories] });
const tagsOf = (text: string): TagInput => {
  const t = JSON.parse(text) as { tags: string[]; categories: [string, TagCategory][] };
  return { tags: t.tags, categories: new Map(t.categories) };
};

/** Stores an upload held for approval under an id taken from the posts' sequence (which no post will take); returns it. */
export async function insertPending(db: Database, post: HeldPost, tags: TagInput): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const id = await db.reservePostId(trx);
    await trx
      .insertInto('pending_posts')
      .values({
        id,
        uploader_id: post.uploader_id,
        sha256: post.sha256,
        title: post.title,
        content_rating: post.content_rating,
        thumb_path: post.thumb_path,
        tags: tagsJson(tags),
        post: JSON.stringify(post),
        created_at: post.created_at,
      })
      .execute();
    return id;
  });
}

const pendingRows = (db: Kysely<DB>) =>
  db
    .selectFrom('pending_posts')
    .innerJoin('users', 'users.id', 'pending_posts.uploader_id')
    .select([
      'pending_posts.id',
      'pending_posts.uploader_id',
      'pending_posts.sha256',
      'pending_posts.title',
      'pending_posts.content_rating',
      'pending_posts.thumb_path',
      'pending_posts.tags',
      'pending_posts.post',
      'pending_posts.created_at',
      'users.username',
      'users.avatar_path',
    ]);

type StoredRow = Omit<PendingRow, 'tags' | 'post'> & { tags: string; post: string };
const parsed = (r: StoredRow): PendingRow => ({ ...r, tags: tagsOf(r.tags), post: JSON.parse(r.post) as HeldPost, created_at: Number(r.created_at) });

export async function findPending(db: Kysely<DB>, id: number): Promise<PendingRow | undefined> {
  const row = await pendingRows(db).where('pending_posts.id', '=', id).executeTakeFirst();
  return row && parsed(row);
}

/** The held upload of these bytes, if any. */
export async function pendingWithFile(db: Kysely<DB>, sha256: string) {
  return db.selectFrom('pending_posts').select(['id', 'uploader_id']).where('sha256', '=', sha256).executeTakeFirst();
}

/** A page of held uploads, oldest first (of one uploader, when given), and how many there are. */
export async function pendingPage(db: Kysely<DB>, uploaderId: number | null, limit: number, offset: number) {
  const rows = await pendingRows(db)
    .$if(uploaderId !== null, (q) => q.where('pending_posts.uploader_id', '=', uploaderId!))
    .orderBy('pending_posts.created_at')
    .orderBy('pending_posts.id')
    .limit(limit)
    .offset(offset)
    .execute();
  const total = await db
    .selectFrom('pending_posts')
    .$if(uploaderId !== null, (q) => q.where('uploader_id', '=', uploaderId!))
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return { rows: rows.map(parsed), total: Number(total.n) };
}

/** The audit entry written with a moderator's approval or rejection. */
export interface Audited {
  by: Actor;
  at: number;
  entry: AuditEntry;
}

/**
 * Publishes a held upload in one transaction: its row leaves pending_posts, and the post is
 * inserted under its id with its tags through the write path every post takes (aliases read as
 * their targets, implied tags added, tag counts moved). Its upload time stays its creation time.
 * The change log names it (PUBLISHED_CHANGE) and so does the count log, and the 'published'
 * counter moves: readers that find new posts above the highest id they saw read it from there.
 * Returns false when it was not pending (any more: a concurrent approval or rejection won).
 */
export async function publishPending(db: Kysely<DB>, id: number, now: number, audit: Audited): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    await applyingImplications(trx);
    // The delete locks the row: a second approval waits here, then finds nothing.
    const row = await trx.deleteFrom('pending_posts').where('id', '=', id).returning(['post', 'tags']).executeTakeFirst();
    if (!row) return false;
    const post = JSON.parse(row.post) as HeldPost;
    // A parent deleted while the upload waited: the post is published without one.
    if (post.parent_id != null && !(await trx.selectFrom('posts').select('id').where('id', '=', post.parent_id).executeTakeFirst())) post.parent_id = null;
    const tags = await tagsForWrite(trx, tagsOf(row.tags), now);
    await insertPostTagged(trx, { ...post, id, updated_at: now }, tags);
    await trx.insertInto('tag_changes').values({ post_id: id, what: PUBLISHED_CHANGE, tag_id: null }).execute();
    await sql`UPDATE counters SET value = value + 1 WHERE name IN ('counts', 'published')`.execute(trx);
    await sql`INSERT INTO count_changes (seq, post_id) SELECT value, ${id} FROM counters WHERE name = 'counts'`.execute(trx);
    await recordAudit(trx, audit.by, audit.at, audit.entry);
    return true;
  });
}

/** Deletes a held upload's row (with the audit entry of a moderator's rejection); false when it was not there. */
export async function deletePending(db: Kysely<DB>, id: number, audit?: Audited): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const gone = await trx.deleteFrom('pending_posts').where('id', '=', id).returning('id').executeTakeFirst();
    if (gone && audit) await recordAudit(trx, audit.by, audit.at, audit.entry);
    return gone !== undefined;
  });
}

/** Whether a post (published) has these bytes: its media files are the same as a held upload's. */
export async function postWithFile(db: Kysely<DB>, sha256: string): Promise<boolean> {
  return (await db.selectFrom('posts').select('id').where('sha256', '=', sha256).executeTakeFirst()) !== undefined;
}

export async function postExists(db: Kysely<DB>, id: number): Promise<boolean> {
  return (await db.selectFrom('posts').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
}

/** Whether the user has fewer than `min` published posts. */
export async function fewerPostsThan(db: Kysely<DB>, userId: number, min: number): Promise<boolean> {
  const rows = await db.selectFrom('posts').select('id').where('uploader_id', '=', userId).limit(min).execute();
  return rows.length < min;
}
