import { sql, type Kysely } from 'kysely';
import type { DB } from '../../db/types.ts';
import type { Database, Db, Tx } from '../../db/engine.ts';
import type { TagSort } from './tags.schemas.ts';
import type { TagCategory } from '../../core/tag-categories.ts';

export interface TagQuery {
  search?: string;
  category?: TagCategory;
  sort: TagSort;
  /** Count only posts created at or after this time. */
  since?: number;
  /** Count only this uploader's posts. */
  uploaderId?: number;
  weekAgo: number;
  offset: number;
  limit: number;
}

/** Per-tag post counts from post_tags, restricted by time and uploader. */
function countsFrom(db: Kysely<DB>, since: number | undefined, uploaderId: number | undefined) {
  let q = db.selectFrom('post_tags').select(['post_tags.tag_id', (eb) => eb.fn.countAll<number>().as('c')]);
  if (since !== undefined) q = q.where('post_tags.created_at', '>=', since);
  if (uploaderId !== undefined) {
    q = q.where('post_tags.post_id', 'in', db.selectFrom('posts').select('posts.id').where('posts.uploader_id', '=', uploaderId));
  }
  return q.groupBy('post_tags.tag_id');
}

export async function listTags(db: Database, q: TagQuery) {
  const restricted = q.since !== undefined || q.uploaderId !== undefined;
  const base = db.selectFrom('tags').select(['tags.id', 'tags.name', 'tags.category']);
  let query = restricted
    ? base.innerJoin(countsFrom(db, q.since, q.uploaderId).as('agg'), 'agg.tag_id', 'tags.id').select(sql<number>`agg.c`.as('count'))
    : base.select('tags.post_count as count').where('tags.post_count', '>', 0);
  if (q.search) query = query.where(db.containsInsensitive(sql.ref('tags.name'), q.search));
  if (q.category) query = query.where('tags.category', '=', q.category);

  const totalRow = await db
    .selectFrom(query.as('t'))
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();

  if (q.search) query = query.orderBy(sql`case when ${db.startsWithInsensitive(sql.ref('tags.name'), q.search)} then 0 else 1 end`);
  const countExpr = restricted ? sql`agg.c` : sql.ref('tags.post_count');
  switch (q.sort) {
    case 'most_used':
      query = query.orderBy(countExpr, 'desc').orderBy('tags.name');
      break;
    case 'newest':
      query = query.orderBy('tags.created_at', 'desc').orderBy('tags.id', 'desc');
      break;
    case 'alphabetical':
      query = query.orderBy('tags.name');
      break;
    case 'trending':
      query = query
        .leftJoin(countsFrom(db, q.weekAgo, q.uploaderId).as('week'), 'week.tag_id', 'tags.id')
        .orderBy(sql`coalesce(week.c, 0)`, 'desc')
        .orderBy(countExpr, 'desc')
        .orderBy('tags.name');
      break;
  }
  const rows = await query.limit(q.limit).offset(q.offset).execute();
  return { rows: rows as { id: number; name: string; category: string; count: number }[], total: Number(totalRow.n) };
}

/** Posts per tag since today's midnight and over the last week, for the tags on one page. */
export async function recentCounts(
  db: Kysely<DB>,
  tagIds: number[],
  todayStart: number,
  weekAgo: number,
  uploaderId?: number,
): Promise<Map<number, { today: number; week: number }>> {
  const out = new Map<number, { today: number; week: number }>();
  if (tagIds.length === 0) return out;
  let q = db
    .selectFrom('post_tags')
    .select([
      'post_tags.tag_id',
      (eb) => eb.fn.countAll<number>().as('week'),
      sql<number>`sum(case when post_tags.created_at >= ${todayStart} then 1 else 0 end)`.as('today'),
    ])
    .where('post_tags.tag_id', 'in', tagIds)
    .where('post_tags.created_at', '>=', Math.min(weekAgo, todayStart));
  if (uploaderId !== undefined) {
    q = q.where('post_tags.post_id', 'in', db.selectFrom('posts').select('posts.id').where('posts.uploader_id', '=', uploaderId));
  }
  for (const r of await q.groupBy('post_tags.tag_id').execute()) {
    out.set(r.tag_id, { today: Number(r.today), week: Number(r.week) });
  }
  return out;
}

/** Every tag that has posts: id, name, category, post count and creation time (the tag cache's snapshot). */
export async function tagsWithPosts(db: Db) {
  return db.selectFrom('tags').select(['id', 'name', 'category', 'post_count', 'created_at']).where('post_count', '>', 0).execute();
}

/** Links per tag made in [from, to) (to: open-ended when not given). */
export async function linkCountsBetween(db: Database, from: number, to?: number) {
  // The window is a range of the (created_at, tag_id) index; left alone, SQLite walks the tag
  // index instead to save a sort, which reads every link ever made.
  const upper = to === undefined ? sql`` : sql` AND created_at < ${to}`;
  return (
    await sql<{
      tag_id: number;
      n: number;
    }>`SELECT tag_id, count(*) AS n FROM post_tags ${db.indexedBy('post_tags_created')}WHERE created_at >= ${from}${upper} GROUP BY tag_id`.execute(db)
  ).rows;
}

/** The tag of that exact name (no alias lookup) with its category and post count, or undefined. */
export async function findTagToAlias(db: Db, name: string) {
  return db.selectFrom('tags').select(['id', 'category', 'post_count']).where('name', '=', name).executeTakeFirst();
}

/** The id and name of the tag of that exact name, or undefined. */
export async function findTagRef(db: Db, name: string) {
  return db.selectFrom('tags').select(['id', 'name']).where('name', '=', name).executeTakeFirst();
}

/** The id of the tag of that exact name, or undefined. */
export async function findTagId(db: Db, name: string) {
  return db.selectFrom('tags').select('id').where('name', '=', name).executeTakeFirst();
}

/** Inserts a tag with no posts; returns its id and name. */
export async function insertTag(trx: Tx, name: string, category: string, createdAt: number) {
  return trx.insertInto('tags').values({ name, post_count: 0, created_at: createdAt, category }).returning(['id', 'name']).executeTakeFirstOrThrow();
}

/** Inserts a tag with no posts; returns its id, name and category. */
export async function insertTagWithCategory(trx: Tx, name: string, category: string, createdAt: number) {
  return trx
    .insertInto('tags')
    .values({ name, post_count: 0, created_at: createdAt, category })
    .returning(['id', 'name', 'category'])
    .executeTakeFirstOrThrow();
}

/** Gives a tag a new name (its id, posts and aliases stay). */
export async function renameTag(trx: Tx, id: number, name: string): Promise<void> {
  await trx.updateTable('tags').set({ name }).where('id', '=', id).execute();
}

/** Sets a tag's category and/or description (those given). */
export async function updateTagFields(trx: Tx, id: number, fields: { category?: string; description?: string }): Promise<void> {
  await trx
    .updateTable('tags')
    .set({
      ...(fields.category !== undefined ? { category: fields.category } : {}),
      ...(fields.description !== undefined ? { description: fields.description } : {}),
    })
    .where('id', '=', id)
    .execute();
}
