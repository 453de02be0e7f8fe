import { sql } from 'kysely';
import { moveCount } from '../../db/counters.ts';
import type { Db, Tx } from '../../db/engine.ts';
import type { ImportRecordsTable } from '../../db/types.ts';

type Kind = ImportRecordsTable['kind'];

// Import records: what came from where.

/** The row made here for what came from `origin` as `originId`, or null when it was never imported. */
export async function recordOf(db: Db, kind: Kind, origin: string, originId: string): Promise<number | null> {
  const row = await db
    .selectFrom('import_records')
    .select('local_id')
    .where('kind', '=', kind)
    .where('origin', '=', origin)
    .where('origin_id', '=', originId)
    .executeTakeFirst();
  return row ? row.local_id : null;
}

/** The rows made here for many ids at one origin (those imported), by origin id. */
export async function recordsOf(db: Db, kind: Kind, origin: string, originIds: string[]): Promise<Map<string, number>> {
  const found = new Map<string, number>();
  for (let i = 0; i < originIds.length; i += 500) {
    const rows = await db
      .selectFrom('import_records')
      .select(['origin_id', 'local_id'])
      .where('kind', '=', kind)
      .where('origin', '=', origin)
      .where('origin_id', 'in', originIds.slice(i, i + 500))
      .execute();
    for (const r of rows) found.set(r.origin_id, r.local_id);
  }
  return found;
}

export interface NewRecord {
  kind: Kind;
  origin: string;
  originId: string;
  localId: number;
  author?: string | null;
  score?: number | null;
  favCount?: number | null;
}

/** Notes what was imported, in the transaction that wrote it. */
export async function addRecord(trx: Tx, r: NewRecord, now: number): Promise<void> {
  await trx
    .insertInto('import_records')
    .values({
      kind: r.kind,
      origin: r.origin.slice(0, 200),
      origin_id: r.originId.slice(0, 100),
      local_id: r.localId,
      author: r.author?.slice(0, 100) ?? null,
      score: r.score ?? null,
      fav_count: r.favCount ?? null,
      created_at: now,
    })
    .execute();
}

/** What an import kept of a post's origin (the export writes it back out), or undefined. */
export async function postOrigin(db: Db, postId: number) {
  return db
    .selectFrom('import_records')
    .select(['origin', 'origin_id', 'author', 'score', 'fav_count'])
    .where('kind', '=', 'post')
    .where('local_id', '=', postId)
    .orderBy('created_at')
    .executeTakeFirst();
}

// Posts and comments.

/** The post's id and parent, or undefined when there is none. */
export async function findPostParent(db: Db, postId: number) {
  return db.selectFrom('posts').select(['id', 'parent_id']).where('id', '=', postId).executeTakeFirst();
}

/** The post holding bytes of this sha256, or undefined. */
export async function postBySha256(db: Db, sha256: string) {
  return db.selectFrom('posts').select('id').where('sha256', '=', sha256).executeTakeFirst();
}

/** The first post (lowest id) holding bytes of this md5, or undefined. */
export async function firstPostByMd5(db: Db, md5: string) {
  return db.selectFrom('posts').select('id').where('md5', '=', md5).orderBy('id').executeTakeFirst();
}

/** Adds `count` to the post's comment count and moves its last comment time up to `newest` (never back). */
export async function addPostComments(trx: Tx, postId: number, count: number, newest: number): Promise<void> {
  await moveCount(trx, 'posts', 'comment_count', postId, count)
    .set({ last_commented_at: sql<number>`CASE WHEN last_commented_at > ${newest} THEN last_commented_at ELSE ${newest} END` })
    .execute();
}

/** Writes a top-level comment with no replies; its id. */
export async function insertComment(trx: Tx, c: { postId: number; userId: number; content: string; createdAt: number }): Promise<number> {
  const row = await trx
    .insertInto('comments')
    .values({ post_id: c.postId, user_id: c.userId, parent_id: null, content: c.content, reply_count: 0, created_at: c.createdAt })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

// Users.

/** The user whose lower-case name is `usernameLower` (whole row), or undefined. */
export async function findUserByLowerName(db: Db, usernameLower: string) {
  return db.selectFrom('users').selectAll().where('username_lower', '=', usernameLower).executeTakeFirst();
}

// Board-wide data: tags, aliases, implications, pools.

/** The category and description of the tag of that name, or undefined. */
export async function findTagInfo(db: Db, name: string) {
  return db.selectFrom('tags').select(['category', 'description']).where('name', '=', name).executeTakeFirst();
}

/** Makes a tag with no posts, unless one of that name exists. */
export async function insertTagIfAbsent(trx: Tx, t: { name: string; createdAt: number; category: string; description: string }): Promise<void> {
  await trx
    .insertInto('tags')
    .values({ name: t.name, post_count: 0, created_at: t.createdAt, category: t.category, description: t.description })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
}

/** The name of the tag the alias `from` leads to, or undefined when there is no such alias. */
export async function aliasTarget(db: Db, from: string): Promise<string | undefined> {
  const have = await db
    .selectFrom('tag_aliases')
    .innerJoin('tags', 'tags.id', 'tag_aliases.tag_id')
    .select('tags.name')
    .where('tag_aliases.from_name', '=', from)
    .executeTakeFirst();
  return have?.name;
}

/** Whether the tag named `from` implies the tag named `to`. */
export async function hasImplication(db: Db, from: string, to: string): Promise<boolean> {
  return (
    (await db
      .selectFrom('tag_implications')
      .innerJoin('tags as f', 'f.id', 'tag_implications.from_id')
      .innerJoin('tags as t', 't.id', 'tag_implications.to_id')
      .select('f.id')
      .where('f.name', '=', from)
      .where('t.name', '=', to)
      .executeTakeFirst()) !== undefined
  );
}

/** Whether the pool exists. */
export async function poolExists(db: Db, poolId: number): Promise<boolean> {
  return (await db.selectFrom('pools').select('id').where('id', '=', poolId).executeTakeFirst()) !== undefined;
}

/** The pool's posts in its order. */
export async function poolPostIds(db: Db, poolId: number) {
  return db.selectFrom('pool_posts').select('post_id').where('pool_id', '=', poolId).orderBy('position').execute();
}

/** Makes an empty public pool; its id. */
export async function insertPool(trx: Tx, p: { creatorId: number; name: string; description: string; now: number }): Promise<number> {
  const made = await trx
    .insertInto('pools')
    .values({ creator_id: p.creatorId, name: p.name, description: p.description, is_public: 1, post_count: 0, created_at: p.now, updated_at: p.now })
    .returning('id')
    .executeTakeFirstOrThrow();
  return made.id;
}
